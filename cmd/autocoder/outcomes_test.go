package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// outcomeCase is one scenario of issue 21's list: a response applied to a
// repository, and the one outcome of each step and of each of its
// operations, which the text report, the JSON and the feedback must all
// tell alike.
type outcomeCase struct {
	name  string
	setup func(t *testing.T) *gittest.Repo
	env   []string
	args  []string // before the response: --atomic
	resp  string
	exit  int
	steps []string   // each step's outcome (JSON outcome)
	ops   [][]string // each step's ops' outcomes
}

func acStep(id string, ops ...string) string {
	return "#####--\n" + `{"metadata":{"step_id":"` + id + `","reason":"step ` + id + `"},"type":"operate","file_operations":[` +
		strings.Join(ops, ",") + "]}\n--#####\n"
}

func acCreate(path, content string) string {
	return `{"action_type":"create_file","path":"` + path + `","file_content":"` + content + `"}`
}

func outcomeCases() []outcomeCase {
	committed := func(files map[string]string) func(t *testing.T) *gittest.Repo {
		return func(t *testing.T) *gittest.Repo { return gittest.NewWithCommit(t, files) }
	}
	return []outcomeCase{
		{name: "refused dirty file",
			setup: func(t *testing.T) *gittest.Repo {
				g := gittest.NewWithCommit(t, map[string]string{"b.txt": "b\n"})
				g.Write("b.txt", "the user's work\n")
				return g
			},
			resp: acStep("s1", acCreate("new.txt", "n\\n"), acCreate("b.txt", "B\\n"), acCreate("c.txt", "c\\n")),
			exit: 4, steps: []string{"refused"}, ops: [][]string{{"rolled_back", "refused", "rolled_back"}}},
		{name: "ignored file",
			setup: committed(map[string]string{".gitignore": "*.log\n"}),
			resp:  acStep("s1", acCreate("a.txt", "a\\n"), acCreate("debug.log", "x\\n")),
			exit:  4, steps: []string{"refused"}, ops: [][]string{{"rolled_back", "refused"}}},
		{name: "missing identity",
			setup: committed(map[string]string{"a.txt": "a\n"}),
			env: []string{"HOME=@EMPTY@", "XDG_CONFIG_HOME=@EMPTY@", "GIT_CONFIG_NOSYSTEM=1", "EMAIL=",
				"GIT_AUTHOR_EMAIL=", "GIT_COMMITTER_EMAIL=", "GIT_CONFIG_GLOBAL=" + os.DevNull},
			resp: acStep("s1", acCreate("b.txt", "b\\n"), acCreate("c.txt", "c\\n")),
			exit: 2, steps: []string{"failed"}, ops: [][]string{{"not_attempted", "not_attempted"}}},
		{name: "no-commit repository, untracked file in the way",
			setup: func(t *testing.T) *gittest.Repo {
				g := gittest.New(t)
				g.Write("a.txt", "untracked\n")
				return g
			},
			resp: acStep("s1", acCreate("a.txt", "a\\n")),
			exit: 4, steps: []string{"refused"}, ops: [][]string{{"refused"}}},
		{name: "a later op failing",
			setup: committed(map[string]string{"m.go": "package m\n"}),
			resp: acStep("s1", acCreate("a.txt", "a\\n"),
				`{"action_type":"replace_file","path":"m.go","modify_content":[{"old_content":"not there","new_content":"x"}]}`,
				acCreate("c.txt", "c\\n")),
			exit: 1, steps: []string{"failed"}, ops: [][]string{{"rolled_back", "failed", "not_attempted"}}},
		{name: "atomic",
			setup: committed(map[string]string{"m.go": "package m\n"}),
			args:  []string{"--atomic"},
			resp: acStep("s1", acCreate("a.txt", "a\\n")) + acStep("s2",
				`{"action_type":"replace_file","path":"m.go","modify_content":[{"old_content":"not there","new_content":"x"}]}`) +
				acStep("s3", acCreate("c.txt", "c\\n")),
			exit: 1, steps: []string{"rolled_back", "failed", "not_attempted"}, ops: [][]string{{"rolled_back"}, {"failed"}, {"not_attempted"}}},
		{name: "program refused",
			setup: committed(map[string]string{"m.go": "package m\n"}),
			resp: "#####--\n" + `{"metadata":{"step_id":"s1","reason":"build"},"type":"operate","file_operations":[` + acCreate("a.txt", "a\\n") +
				`],"program_operations":[{"name":"build","command":"make all"}]}` + "\n--#####\n",
			exit: 4, steps: []string{"applied"}, ops: [][]string{{"applied"}}},
	}
}

// feedbackWord is the autocoder JSON feedback's word for each outcome of
// an op.
var feedbackWord = map[string]string{"applied": "success", "refused": "refused", "failed": "failure",
	"rolled_back": "rolled_back", "not_attempted": "not_attempted"}

// textWord is the text report's status word for each outcome of a step.
var textWord = map[string]string{"applied": "applied", "refused": "refused", "failed": "failed",
	"rolled_back": "rolled back", "not_attempted": "skipped"}

// TestOneOutcomePerOperation: in each scenario every operation has one
// outcome, and the text report, the JSON (outcome, exit_code) and the
// feedback tell the same one; a refusal is a refusal of the op whose path
// it names, never "rolled back: the step failed after it"; an op nothing
// of which was written is never called rolled back by a step-level
// failure; nothing changes when the step fails.
func TestOneOutcomePerOperation(t *testing.T) {
	gittest.Isolate(t)
	for _, c := range outcomeCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			resp := filepath.Join(t.TempDir(), "r.md")
			must(t, os.WriteFile(resp, []byte(c.resp), 0o666))
			changes := false
			for _, s := range c.steps {
				changes = changes || s == "applied"
			}
			// Each surface is asked in a repository of its own, as the
			// scenario makes it; a step that fails changes nothing.
			var g *gittest.Repo
			var before gittest.Snapshot
			run := func(args ...string) (string, string, int) {
				if g != nil && !changes {
					g.AssertRestored(before)
				}
				g = c.setup(t)
				before = g.Snapshot()
				cmd := exec.Command("autocoder", append(append([]string{"-C", g.Dir, "apply"}, c.args...), append(args, resp)...)...)
				cmd.Env = os.Environ()
				empty := t.TempDir() // a home with no identity and no configuration
				for _, e := range c.env {
					cmd.Env = append(cmd.Env, strings.ReplaceAll(e, "@EMPTY@", empty))
				}
				var out, errw strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &errw
				err := cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				return out.String(), errw.String(), code
			}

			// JSON: each result's and op's outcome, the exit code.
			js, jerr, code := run("--format", "json")
			if code != c.exit {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.exit, js, jerr)
			}
			var rep struct {
				ExitCode int `json:"exit_code"`
				Results  []struct {
					Outcome string
					Ops     []struct{ Kind, Path, Outcome, Message, Error string }
				}
			}
			if err := json.Unmarshal([]byte(js), &rep); err != nil {
				t.Fatalf("%v\n%s", err, js)
			}
			if rep.ExitCode != c.exit || len(rep.Results) != len(c.steps) {
				t.Fatalf("exit_code %d, %d results:\n%s", rep.ExitCode, len(rep.Results), js)
			}
			for i, r := range rep.Results {
				if r.Outcome != c.steps[i] {
					t.Errorf("JSON: step %d: outcome %s, want %s", i+1, r.Outcome, c.steps[i])
				}
				if len(r.Ops) != len(c.ops[i]) {
					t.Fatalf("JSON: step %d: %d ops, want %d:\n%s", i+1, len(r.Ops), len(c.ops[i]), js)
				}
				for j, op := range r.Ops {
					if op.Outcome != c.ops[i][j] {
						t.Errorf("JSON: step %d op %d (%s %s): outcome %s, want %s", i+1, j+1, op.Kind, op.Path, op.Outcome, c.ops[i][j])
					}
					if op.Outcome == "refused" && op.Error == "" {
						t.Errorf("JSON: step %d op %d is refused without its reason", i+1, j+1)
					}
					if c.steps[i] == "refused" && strings.Contains(op.Message, "failed after it") {
						t.Errorf("JSON: step %d op %d: a refusal told as a failure after it: %s", i+1, j+1, op.Message)
					}
				}
			}

			// Feedback, in the response's dialect.
			fb, _, code := run("--feedback", "-")
			if code != c.exit {
				t.Fatalf("feedback: exit %d, want %d", code, c.exit)
			}
			statuses := regexp.MustCompile(`"status": "([a-z_]+)",\s+"action"`).FindAllStringSubmatch(fb, -1)
			var want []string
			for _, ops := range c.ops {
				for _, o := range ops {
					want = append(want, feedbackWord[o])
				}
			}
			var got []string
			for _, m := range statuses {
				got = append(got, m[1])
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("feedback: the ops' statuses are %q, want %q:\n%s", got, want, fb)
			}
			if c.name == "program refused" && !strings.Contains(fb, `"status": "refused"`) {
				t.Errorf("feedback: the program is not refused:\n%s", fb)
			}

			// Text: each step's word, the rolled-back ops named as such and
			// no other; the error and hint of what failed or was refused.
			out, errw, code := run()
			if code != c.exit {
				t.Fatalf("text: exit %d, want %d", code, c.exit)
			}
			lines := strings.Split(out, "\n")
			k := 0
			for _, l := range lines {
				for _, w := range []string{"applied", "refused", "failed", "rolled back", "skipped"} {
					if strings.HasPrefix(l, w+" ") {
						if k < len(c.steps) && w != textWord[c.steps[k]] {
							t.Errorf("text: step %d is %q, want %q:\n%s", k+1, w, textWord[c.steps[k]], out)
						}
						k++
					}
				}
			}
			if k != len(c.steps) {
				t.Errorf("text: %d step lines, want %d:\n%s", k, len(c.steps), out)
			}
			rolled := strings.Count(out, ": rolled back, not applied")
			n := 0
			for _, ops := range c.ops {
				for _, o := range ops {
					if o == "rolled_back" {
						n++
					}
				}
			}
			if rolled != n {
				t.Errorf("text: %d ops said rolled back, want %d:\n%s", rolled, n, out)
			}
			if c.exit != 0 && (!strings.Contains(errw, "autocoder: error: ") || !strings.Contains(errw, "autocoder: hint: ")) {
				t.Errorf("text: no error and hint:\n%s", errw)
			}
			if strings.Contains(out+errw, "failed after it") && c.steps[0] == "refused" {
				t.Errorf("text: a refusal told as a failure after it:\n%s%s", out, errw)
			}
			if !changes {
				g.AssertRestored(before)
			}
		})
	}
}
