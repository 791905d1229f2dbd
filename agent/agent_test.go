package agent_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder"
	"github.com/autocoder/autocoder/agent"
	"github.com/autocoder/autocoder/agent/agenttest"
	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// create is an autocoder JSON block that creates path with content.
func create(id, path, content string) string {
	return fmt.Sprintf("Step %s.\n#####--\n{\"metadata\": {\"step_id\": %q, \"reason\": \"write %s\"}, \"type\": \"operate\", \"file_operations\": [{\"action_type\": \"create_file\", \"path\": %q, \"file_content\": %q}]}\n--#####\n", id, id, path, path, content)
}

func finish(summary string) string {
	return fmt.Sprintf("#####--\n{\"metadata\": {\"step_id\": \"done\", \"summary\": %q}, \"type\": \"finish\"}\n--#####\n", summary)
}

type fixture struct {
	g      *gittest.Repo
	e      *txn.Engine
	srv    *agenttest.Server
	c      agent.Config
	out    *bytes.Buffer
	before gittest.Snapshot
}

func setup(t *testing.T, answers ...agenttest.Answer) *fixture {
	t.Helper()
	return setupWith(t, "", answers...)
}

// setupWith is setup with userConfig as the user's own configuration file
// (config.toml; "" for none): the engine is opened as autocoder run opens
// it (autocoder.Open), with the configuration loaded and the real program
// policy, never without one.
func setupWith(t *testing.T, userConfig string, answers ...agenttest.Answer) *fixture {
	t.Helper()
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"README": "hello\n"})
	dirs := config.Dirs{Config: t.TempDir(), State: t.TempDir()}
	if userConfig != "" {
		if err := os.MkdirAll(filepath.Dir(dirs.UserFile()), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dirs.UserFile(), []byte(userConfig), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ae, err := autocoder.Open(context.Background(), g.Dir, autocoder.Options{Dirs: &dirs})
	if err != nil {
		t.Fatal(err)
	}
	e := ae.Engine
	t.Cleanup(func() { e.Close() })
	srv := agenttest.New(answers...)
	t.Cleanup(srv.Close)
	out := &bytes.Buffer{}
	return &fixture{g: g, e: e, srv: srv, out: out, before: g.Snapshot(), c: agent.Config{
		BaseURL: srv.URL(), APIKey: "test-key", Model: "test-model", MaxRetries: 2,
		System: "SYSTEM PROMPT", Out: out, Progress: out,
	}}
}

func (f *fixture) run(t *testing.T, ctx context.Context, e agent.Engine) (*agent.Report, error) {
	t.Helper()
	if e == nil {
		e = f.e
	}
	rep, err := agent.Run(ctx, e, f.c, "TASK: write a and b")
	f.e.Flush()
	return rep, err
}

// stepCommits counts the step commits on the work branch.
func (f *fixture) stepCommits(t *testing.T) int {
	out, err := f.g.GitErr("log", "--format=%s", "main..autocoder/main")
	if err != nil {
		return 0
	}
	return len(strings.Fields(strings.TrimSpace(strings.ReplaceAll(out, " ", "_"))))
}

// The loop: each answer's blocks become commits, the feedback of a turn is
// the next user message, the system prompt and the task go first, and a
// finish step ends the run.
func TestLoopTurnByTurn(t *testing.T) {
	f := setup(t,
		agenttest.Answer{Text: create("s1", "a.txt", "a\n")},
		agenttest.Answer{Text: create("s2", "b.txt", "b\n") + create("s3", "c.txt", "c\n")},
		agenttest.Answer{Text: "All written.\n" + finish("wrote a, b and c")},
	)
	rep, err := f.run(t, context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Stop != agent.StopFinished || rep.Finished != "wrote a, b and c" || len(rep.Turns) != 3 {
		t.Fatalf("stop %s, summary %q, %d turns", rep.Stop, rep.Finished, len(rep.Turns))
	}
	reqs := f.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	first := reqs[0].Messages
	if len(first) != 2 || first[0].Role != "system" || first[0].Content != "SYSTEM PROMPT" || first[1].Role != "user" || first[1].Content != "TASK: write a and b" {
		t.Fatalf("first request: %+v", first)
	}
	for i, r := range reqs {
		if r.Model != "test-model" || !r.Stream || !r.IncludeUsage || r.Authorization != "Bearer test-key" {
			t.Errorf("request %d: %+v", i+1, r)
		}
		if want := 2 + 2*i; len(r.Messages) != want {
			t.Errorf("request %d has %d messages, want %d", i+1, len(r.Messages), want)
		}
	}
	// Turn 2 carries turn 1's answer and its feedback; turn 3 the feedback
	// of both blocks of turn 2, in the dialect's own shape.
	m := reqs[1].Messages
	if m[2].Role != "assistant" || m[2].Content != create("s1", "a.txt", "a\n") {
		t.Errorf("turn 2 does not carry the model's answer: %+v", m[2])
	}
	if fb := m[3].Content; m[3].Role != "user" || !strings.Contains(fb, `"step_id": "s1"`) || !strings.Contains(fb, `"file_actions"`) || !strings.Contains(fb, "applied as commit") {
		t.Errorf("turn 2's feedback:\n%s", fb)
	}
	if fb := reqs[2].Messages[5].Content; strings.Count(fb, "#####--") != 2 || !strings.Contains(fb, `"step_id": "s3"`) {
		t.Errorf("turn 3's feedback:\n%s", fb)
	}
	if n := f.stepCommits(t); n != 3 {
		t.Errorf("%d step commits, want 3", n)
	}
	if got := f.g.MustRead("c.txt"); got != "c\n" {
		t.Errorf("c.txt = %q", got)
	}
	if len(rep.Commits()) != 3 {
		t.Errorf("the report counts %d commits", len(rep.Commits()))
	}
	// The answers streamed to the terminal, with a progress line a turn.
	out := f.out.String()
	if !strings.Contains(out, "All written.") || !strings.Contains(out, "autocoder: turn 3: ") || !strings.Contains(out, "tokens") {
		t.Errorf("terminal output:\n%s", out)
	}
	f.g.AssertClean()
	f.g.Fsck()
}

// An answer the model's output limit cut (finish_reason length) does not
// end the run as an answer without a block would: the model is told its
// answer was cut, and the blocks it finished are applied as usual.
func TestAnswerCutAtTheOutputLimit(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			f := setup(t,
				agenttest.Answer{Text: "Let me think about the whole design first, at length", FinishReason: "length"},
				agenttest.Answer{Text: create("s1", "a.txt", "a\n") + "#####--\n{\"metadata\": {\"step_id\": \"s2\"", FinishReason: "length"},
				agenttest.Answer{Text: finish("done")},
			)
			f.c.NoStream = !stream
			rep, err := f.run(t, context.Background(), nil)
			if err != nil || rep.Stop != agent.StopFinished || len(f.srv.Requests()) != 3 {
				t.Fatalf("stop %s, err %v, %d requests", rep.Stop, err, len(f.srv.Requests()))
			}
			reqs := f.srv.Requests()
			for i := 1; i < 3; i++ {
				if m := reqs[i].Messages; !strings.Contains(m[len(m)-1].Content, "cut at the output limit") {
					t.Errorf("request %d does not tell the model its answer was cut:\n%s", i+1, m[len(m)-1].Content)
				}
			}
			if f.stepCommits(t) != 1 || f.g.MustRead("a.txt") != "a\n" {
				t.Errorf("%d commits; the whole block of the cut answer was not applied", f.stepCommits(t))
			}
			if !strings.Contains(f.out.String(), "cut at the output limit") {
				t.Errorf("the terminal does not say the answer was cut:\n%s", f.out.String())
			}
			f.g.AssertClean()
		})
	}
}

// An answer without any block ends the run: the model is done talking.
func TestAnswerWithoutBlockEndsTheRun(t *testing.T) {
	f := setup(t, agenttest.Answer{Text: "I need to know which file you mean."})
	rep, err := f.run(t, context.Background(), nil)
	if err != nil || rep.Stop != agent.StopNoBlock || len(f.srv.Requests()) != 1 {
		t.Fatalf("stop %s, err %v, %d requests", rep.Stop, err, len(f.srv.Requests()))
	}
	f.g.AssertUnchanged(f.before)
}

func TestTurnLimit(t *testing.T) {
	f := setup(t,
		agenttest.Answer{Text: create("s1", "a.txt", "a\n")},
		agenttest.Answer{Text: create("s2", "b.txt", "b\n")},
		agenttest.Answer{Text: create("s3", "c.txt", "c\n")},
	)
	f.c.MaxTurns = 2
	rep, err := f.run(t, context.Background(), nil)
	if err != nil || rep.Stop != agent.StopMaxTurns || len(f.srv.Requests()) != 2 || f.stepCommits(t) != 2 {
		t.Fatalf("stop %s, err %v, %d requests, %d commits", rep.Stop, err, len(f.srv.Requests()), f.stepCommits(t))
	}
}

// The token budget is checked before each turn, on the tokens the server
// reported; without counts from the server the run estimates them.
func TestTokenBudget(t *testing.T) {
	for _, noUsage := range []bool{false, true} {
		t.Run(fmt.Sprintf("nousage=%v", noUsage), func(t *testing.T) {
			f := setup(t,
				agenttest.Answer{Text: create("s1", "a.txt", strings.Repeat("a", 400)), NoUsage: noUsage},
				agenttest.Answer{Text: create("s2", "b.txt", "b\n"), NoUsage: noUsage},
			)
			f.c.MaxTokens = 50
			rep, err := f.run(t, context.Background(), nil)
			if err != nil || rep.Stop != agent.StopBudget || len(f.srv.Requests()) != 1 || rep.Tokens < 50 {
				t.Fatalf("stop %s, err %v, %d requests, %d tokens", rep.Stop, err, len(f.srv.Requests()), rep.Tokens)
			}
			if rep.Turns[0].Usage.Estimated != noUsage {
				t.Errorf("estimated = %v", rep.Turns[0].Usage.Estimated)
			}
		})
	}
}

// 429 and 5xx are retried with backoff; the run goes on as if nothing
// happened.
func TestRetries(t *testing.T) {
	f := setup(t,
		agenttest.Answer{Status: http.StatusTooManyRequests, RetryAfterMs: 5},
		agenttest.Answer{Status: http.StatusServiceUnavailable}, // no Retry-After: the library's backoff
		agenttest.Answer{Text: create("s1", "a.txt", "a\n")},
		agenttest.Answer{Status: http.StatusInternalServerError, RetryAfterMs: 5},
		agenttest.Answer{Text: finish("done")},
	)
	rep, err := f.run(t, context.Background(), nil)
	if err != nil || rep.Stop != agent.StopFinished {
		t.Fatalf("stop %s, err %v", rep.Stop, err)
	}
	if n := len(f.srv.Requests()); n != 5 {
		t.Errorf("%d requests, want 5 (3 retried)", n)
	}
	if f.stepCommits(t) != 1 {
		t.Errorf("%d commits, want 1", f.stepCommits(t))
	}
}

// A 401, an unknown model, a server that stays busy: clear errors with a
// hint, no retry of what cannot succeed, nothing changed.
func TestAPIErrors(t *testing.T) {
	cases := []struct {
		name     string
		setup    func(f *fixture)
		requests int
		class    step.Class
		msg      string
		hint     string
	}{
		{"unauthorized", func(f *fixture) { f.srv.SetKey("the-right-key") }, 1, step.ClassUsage, "401", "API key"},
		{"unknown model", func(f *fixture) { f.srv.SetModels("gpt-x") }, 1, step.ClassUsage, "test-model", "--model"},
		{"busy", func(f *fixture) { f.c.MaxRetries = 1 }, 2, step.ClassInternal, "429", "retries"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := setup(t, agenttest.Answer{Status: 429, RetryAfterMs: 1}, agenttest.Answer{Status: 429, RetryAfterMs: 1},
				agenttest.Answer{Text: create("s1", "a.txt", "a\n")})
			if tc.name != "busy" {
				f.srv.Close()
				f.srv = agenttest.New(agenttest.Answer{Text: create("s1", "a.txt", "a\n")})
				t.Cleanup(f.srv.Close)
				f.c.BaseURL = f.srv.URL()
			}
			tc.setup(f)
			rep, err := f.run(t, context.Background(), nil)
			var me *agent.ModelError
			if !errors.As(err, &me) || rep.Stop != agent.StopError {
				t.Fatalf("err %v (%T), stop %s", err, err, rep.Stop)
			}
			if step.ClassOf(err) != tc.class || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(step.HintOf(err), tc.hint) {
				t.Errorf("class %s, error %q, hint %q", step.ClassOf(err), err, step.HintOf(err))
			}
			if n := len(f.srv.Requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			f.g.AssertUnchanged(f.before)
		})
	}
}

// A stream cut halfway is an error, and nothing of its answer is applied,
// not even the blocks that arrived whole; earlier turns stay.
func TestStreamCutHalfway(t *testing.T) {
	second := create("s2", "b.txt", "b\n") + create("s3", "c.txt", "c\n")
	f := setup(t,
		agenttest.Answer{Text: create("s1", "a.txt", "a\n")},
		agenttest.Answer{Text: second, CutAfter: len(second) - 20},
	)
	rep, err := f.run(t, context.Background(), nil)
	var me *agent.ModelError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "cut") || rep.Stop != agent.StopError {
		t.Fatalf("err %v, stop %s", err, rep.Stop)
	}
	if f.stepCommits(t) != 1 {
		t.Errorf("%d commits, want only turn 1's", f.stepCommits(t))
	}
	if _, ok := f.g.Read("b.txt"); ok {
		t.Error("b.txt of the cut answer was written")
	}
	f.g.AssertClean()
}

func TestWholeAnswersWithoutStreaming(t *testing.T) {
	f := setup(t, agenttest.Answer{Text: create("s1", "a.txt", "a\n")}, agenttest.Answer{Text: finish("ok")})
	f.c.NoStream = true
	rep, err := f.run(t, context.Background(), nil)
	if err != nil || rep.Stop != agent.StopFinished {
		t.Fatalf("stop %s, err %v", rep.Stop, err)
	}
	for _, r := range f.srv.Requests() {
		if r.Stream {
			t.Error("a request asked for a stream")
		}
	}
	if !strings.Contains(f.out.String(), "Step s1.") || rep.Turns[0].Usage.Estimated {
		t.Errorf("output %q, usage %+v", f.out.String(), rep.Turns[0].Usage)
	}
}

// interrupting is an engine that cancels the run's context once the first
// step of turn n is done, as Ctrl-C would in the middle of an answer.
type interrupting struct {
	e      *txn.Engine
	n      int
	turn   int
	cancel context.CancelFunc
}

func (i *interrupting) Run(ctx context.Context, items []step.Item, o txn.RunOptions) []step.Result {
	i.turn++
	if i.turn == i.n {
		o.OnResult = func(step.Result) { i.cancel() }
	}
	return i.e.Run(ctx, items, o)
}

// Ctrl-C in the middle of applying an answer takes the whole answer back;
// the turns before it stay, and no further request is made.
func TestInterruptTakesBackTheTurnInFlight(t *testing.T) {
	f := setup(t,
		agenttest.Answer{Text: create("s1", "a.txt", "a\n")},
		agenttest.Answer{Text: create("s2", "b.txt", "b\n") + create("s3", "c.txt", "c\n")},
		agenttest.Answer{Text: finish("never asked")},
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep, err := f.run(t, ctx, &interrupting{e: f.e, n: 2, cancel: cancel})
	var ie *agent.InterruptedError
	if !errors.As(err, &ie) || !errors.Is(err, context.Canceled) || rep.Stop != agent.StopInterrupted || ie.Turn != 2 {
		t.Fatalf("err %v, stop %s", err, rep.Stop)
	}
	if len(f.srv.Requests()) != 2 {
		t.Errorf("%d requests after the interrupt, want 2", len(f.srv.Requests()))
	}
	if f.stepCommits(t) != 1 {
		t.Errorf("%d commits, want turn 1's only", f.stepCommits(t))
	}
	if _, ok := f.g.Read("b.txt"); ok {
		t.Error("b.txt of the interrupted turn is still there")
	}
	// The summary counts it as rolled back, not as a failure of its own.
	var b bytes.Buffer
	rep.Print(&b, "autocoder/main", "")
	if !strings.Contains(b.String(), "1 rolled back") {
		t.Errorf("the summary does not count the step taken back:\n%s", b.String())
	}
	// The step taken back says so, down to its op: not applied.
	if rs := rep.Turns[1].Results; len(rs) == 0 || rs[0].Reason != step.ReasonRolledBack || len(rs[0].Ops) != 1 ||
		rs[0].Ops[0].Status != step.StatusRolledBack || rs[0].Commit != "" {
		t.Errorf("turn 2's first result: %+v", rs)
	}
	f.g.AssertClean()
	f.g.Fsck()
}

// cancelAfter is an engine that cancels the run's context once turn n's
// answer is applied whole, as a Ctrl-C just after it would.
type cancelAfter struct {
	e      *txn.Engine
	n      int
	turn   int
	cancel context.CancelFunc
}

func (c *cancelAfter) Run(ctx context.Context, items []step.Item, o txn.RunOptions) []step.Result {
	c.turn++
	rs := c.e.Run(ctx, items, o)
	if c.turn == c.n {
		c.cancel()
	}
	return rs
}

// Ctrl-C just after an answer was applied whole keeps it and says so: the
// run stops before asking again, and does not claim the turn was taken
// back.
func TestInterruptAfterTheTurnKeepsIt(t *testing.T) {
	f := setup(t,
		agenttest.Answer{Text: create("s1", "a.txt", "a\n")},
		agenttest.Answer{Text: create("s2", "b.txt", "b\n")},
		agenttest.Answer{Text: finish("never asked")},
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep, err := f.run(t, ctx, &cancelAfter{e: f.e, n: 2, cancel: cancel})
	var ie *agent.InterruptedError
	if !errors.As(err, &ie) || rep.Stop != agent.StopInterrupted || len(f.srv.Requests()) != 2 {
		t.Fatalf("err %v, stop %s, %d requests", err, rep.Stop, len(f.srv.Requests()))
	}
	if f.stepCommits(t) != 2 || f.g.MustRead("b.txt") != "b\n" {
		t.Fatalf("%d commits: turn 2, applied before the interrupt, is gone", f.stepCommits(t))
	}
	if strings.Contains(err.Error(), "taken back") || !strings.Contains(err.Error(), "turn 2 was applied") {
		t.Errorf("the error misstates turn 2: %v", err)
	}
	var b bytes.Buffer
	rep.Print(&b, "autocoder/main", "")
	if strings.Contains(b.String(), "taken back") || !strings.Contains(b.String(), "2 commits") {
		t.Errorf("the report misstates turn 2:\n%s", b.String())
	}
	f.g.AssertClean()
}

func TestReportSaysHowToReview(t *testing.T) {
	f := setup(t, agenttest.Answer{Text: create("s1", "a.txt", "a\n")}, agenttest.Answer{Text: finish("wrote a")})
	rep, err := f.run(t, context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	rep.Print(&b, "autocoder/main", "0123456789abcdef")
	for _, want := range []string{"2 turns, ", "tokens, ", ": the model finished\n", "summary: wrote a", "1 commit on autocoder/main",
		"git log --stat 0123456789ab..autocoder/main", "autocoder undo 1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
}

// program is an autocoder JSON block whose step runs command.
func program(id, command string) string {
	return fmt.Sprintf("#####--\n{\"metadata\": {\"step_id\": %q, \"reason\": \"run %s\"}, \"type\": \"operate\", \"program_operations\": [{\"name\": %q, \"command\": %q}]}\n--#####\n", id, command, id, command)
}

// The engine of a run has the real program policy of the user's
// configuration: a program its allow list names runs, and one it does not
// is refused with the policy's own reason (an engine opened without a
// policy would refuse both, saying only that programs are off).
func TestRunHasTheRealProgramPolicy(t *testing.T) {
	f := setupWith(t, "[programs]\nenabled = true\nallow = [\"echo agent-policy\"]\n",
		agenttest.Answer{Text: program("p1", "echo agent-policy") + program("p2", "echo not-listed")},
		agenttest.Answer{Text: finish("ran it")},
	)
	rep, err := f.run(t, context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Turns) < 1 {
		t.Fatalf("no turn: %+v", rep)
	}
	fb := rep.Turns[0].Feedback
	if !strings.Contains(fb, "agent-policy\\n") || strings.Count(fb, `"status": "success"`) != 1 {
		t.Errorf("the allowed program did not run (or did not succeed):\n%s", fb)
	}
	if !strings.Contains(fb, `"status": "refused"`) || !strings.Contains(fb, "starts with none of the [programs] allow entries") {
		t.Errorf("the program the allow list does not name is not refused by the policy's own reason:\n%s", fb)
	}
}
