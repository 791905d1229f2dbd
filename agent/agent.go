// Package agent is `autocoder run`: it drives a model through an
// OpenAI-compatible chat API (github.com/openai/openai-go/v3) in the loop
// the seeds describe. The system prompt teaches the dialect (package
// prompt); each turn the model's answer streams to the terminal, its blocks
// are read (protocol.Parse) and applied on the work branch by the same
// engine call `autocoder apply` makes (txn.Engine.Run), and the executor's
// answer in the dialect (protocol.Feedback) is the next user message. The
// loop stops when the model finishes, at the turn or token budget, on an
// error of the API, or when ctx ends (Ctrl-C): the answer in flight is then
// taken back whole.
//
// Start with Run; model.go talks to the API, report.go says what happened.
package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/report"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/termsafe"
	"github.com/autocoder/autocoder/txn"
)

// Engine applies the items of one answer. *txn.Engine is the one used;
// the interface is here so that the loop's tests can count the calls.
type Engine interface {
	Run(ctx context.Context, items []step.Item, o txn.RunOptions) []step.Result
}

// liveEngine is an Engine that keeps programs running across turns
// (*txn.Engine): Live reports their new output each turn and stops them
// when the run ends.
type liveEngine interface {
	Live(stop bool, why string) []step.Result
}

// Config is one run's settings. cmd/autocoder fills it from the flags, the
// environment and autocoder.toml's [model] table.
type Config struct {
	BaseURL    string // the API's base URL, ".../v1"
	APIKey     string // the key itself (never stored: only the variable's name is configured)
	APIKeyEnv  string // the name of the variable APIKey came from, for the hint of a refused key
	Model      string
	MaxRetries int  // retries of a 429, a 5xx or a lost connection, with backoff
	NoStream   bool // ask for whole answers instead of a stream
	// MaxAnswerBytes caps one answer's text (0: DefaultMaxAnswerBytes);
	// the HTTP body that carries it is capped at a multiple of it (see
	// capBody). A larger answer is refused, as apply refuses a larger
	// response: a server may send without end.
	MaxAnswerBytes int64
	// IdleTimeout is how long the API may send nothing, before its answer
	// starts or in the middle of it, before the request is given up
	// (0: DefaultIdleTimeout).
	IdleTimeout time.Duration
	// AnswerTimeout is the longest one answer may take, from the request
	// (its retries included) to its last byte, however steadily the server
	// sends (0: DefaultAnswerTimeout). Past it the run stops, with nothing
	// of that answer applied.
	AnswerTimeout time.Duration

	// Tools offers the edits as functions through the API's function
	// calling (run --tools) instead of a text dialect; Programs offers
	// run_program too, where the policy allows programs.
	Tools    bool
	Programs bool

	System    string // the system prompt
	MaxTurns  int    // stop after this many answers (0: no limit)
	MaxTokens int64  // stop once the run has used this many tokens (0: no limit)

	Out      io.Writer // the model's answers, as they stream
	Progress io.Writer // one progress line per turn, and each failed or refused step's error and hint
	// RefusedHint is the hint for the user of a program the policy
	// refused (the flag, the allow entry that lets it run); nil or "":
	// the result's own hint, written for the model.
	RefusedHint func(step.Program) string
}

// Stop is why a run ended.
type Stop string

// The reasons a run ends.
const (
	StopFinished    Stop = "finished"    // the model sent type: finish
	StopNoBlock     Stop = "no_block"    // an answer with no instruction block: the model is done talking
	StopMaxTurns    Stop = "max_turns"   // the turn limit
	StopBudget      Stop = "budget"      // the token budget
	StopInterrupted Stop = "interrupted" // ctx ended (Ctrl-C); the turn in flight was taken back
	StopError       Stop = "error"       // the API failed; nothing of the failed turn was applied
)

// Turn is one exchange: what was sent, what the model answered, what the
// engine did with it.
type Turn struct {
	N        int           `json:"turn"`
	Sent     Message       `json:"sent"` // the user message of this turn (the task, or the last feedback)
	Answer   string        `json:"answer"`
	Usage    Usage         `json:"usage"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	Results  []step.Result `json:"results,omitempty"`
	Feedback string        `json:"feedback,omitempty"`
	// Limited: the model's output limit cut the answer (finish_reason
	// length); the feedback told the model so.
	Limited bool `json:"limited,omitempty"`
	// Calls are the answer's function calls (run --tools); Feedback then
	// holds the tool messages that answered them.
	Calls []ToolCall `json:"calls,omitempty"`
}

// Report is what a run did.
type Report struct {
	Model    string        `json:"model"`
	System   string        `json:"system"`
	Task     string        `json:"task"`
	Turns    []Turn        `json:"turns"`
	Stop     Stop          `json:"stop"`
	Err      string        `json:"error,omitempty"`
	Tokens   int64         `json:"tokens"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	Finished string        `json:"summary,omitempty"` // the finish step's summary
}

// Run drives the conversation for task until it stops, and reports what
// happened; the error is that of the API when Stop is StopError, the
// context's when StopInterrupted, else nil.
func Run(ctx context.Context, e Engine, c Config, task string) (*Report, error) {
	if c.Out == nil {
		c.Out = io.Discard
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	cl := newClient(c)
	rep := &Report{Model: c.Model, System: c.System, Task: task}
	start := time.Now()
	defer func() { rep.Elapsed = time.Since(start) }()
	msgs := []Message{{Role: "system", Content: c.System}, {Role: "user", Content: task}}
	le, _ := e.(liveEngine)
	if le != nil {
		// Programs that keep running end with the run, however it ends;
		// what they said last goes to the last turn's record.
		defer func() {
			rs := le.Live(true, "stopped: the run ended, and every program with it.")
			if len(rs) > 0 && len(rep.Turns) > 0 {
				last := &rep.Turns[len(rep.Turns)-1]
				last.Results = append(last.Results, rs...)
			}
		}()
	}
	for n := 1; ; n++ {
		if c.MaxTurns > 0 && n > c.MaxTurns {
			rep.Stop = StopMaxTurns
			return rep, nil
		}
		if c.MaxTokens > 0 && rep.Tokens >= c.MaxTokens {
			rep.Stop = StopBudget
			return rep, nil
		}
		t := Turn{N: n, Sent: msgs[len(msgs)-1]}
		fmt.Fprintf(c.Progress, "autocoder: turn %d: asking %s\n", n, c.Model)
		began := time.Now()
		var calls []ToolCall
		answer, u, limited, err := cl.complete(ctx, msgs, c.Out, &calls)
		if !strings.HasSuffix(answer, "\n") {
			fmt.Fprintln(c.Out)
		}
		t.Answer, t.Usage, t.Elapsed, t.Limited = answer, u, time.Since(began), limited
		rep.Tokens += u.Total()
		if err != nil {
			rep.Turns = append(rep.Turns, t)
			rep.Err = err.Error()
			if ctx.Err() != nil {
				rep.Stop = StopInterrupted
				return rep, &InterruptedError{Turn: n, Err: err}
			}
			rep.Stop = StopError
			return rep, err
		}
		if limited {
			fmt.Fprintf(c.Progress, "autocoder: turn %d: the answer was cut at the output limit (finish_reason length); the model is told\n", n)
		}
		items := protocol.Parse([]byte(answer))
		if len(items) > 0 {
			t.Results = e.Run(ctx, items, txn.RunOptions{UndoOnCancel: true})
		}
		// Blocks in the text and the programs that keep running are
		// answered by a user message; function calls by tool messages.
		answered := t.Results
		var answers []Message
		var finish *string
		if len(calls) > 0 && ctx.Err() == nil {
			t.Calls = calls
			var rs []step.Result
			rs, answers, finish = runCalls(ctx, e, calls)
			t.Results = append(t.Results, rs...)
		}
		if le != nil && ctx.Err() == nil {
			// The programs that keep running: their new output since the
			// last turn, and a commit of the files they changed.
			live := le.Live(false, "")
			t.Results = append(t.Results, live...)
			answered = append(answered[:len(answered):len(answered)], live...)
		}
		label := outcome(t.Results)
		if finish != nil { // the finish call is no step
			label = strings.TrimPrefix(strings.TrimPrefix(label, "no instruction block")+", finish", ", ")
		}
		fmt.Fprintf(c.Progress, "autocoder: turn %d: %s · %s tokens%s (run: %d) · %s\n", n, label,
			count(u.Total()), estimated(u), rep.Tokens, since(start))
		troubles(termsafe.Writer{W: c.Progress}, n, t.Results, c.RefusedHint)
		if ctx.Err() != nil {
			rep.Turns = append(rep.Turns, t)
			rep.Stop = StopInterrupted
			err := context.Cause(ctx)
			rep.Err = err.Error()
			// The interrupt may come once the answer is applied whole
			// (Run had ended): then its commits stay, and must not be
			// called taken back.
			return rep, &InterruptedError{Turn: n, Err: err, Kept: t.committed()}
		}
		if finish != nil {
			t.Feedback = toolFeedback(answers)
			rep.Turns = append(rep.Turns, t)
			rep.Stop, rep.Finished = StopFinished, *finish
			return rep, nil
		}
		if len(items) == 0 && len(calls) == 0 && !limited {
			rep.Turns = append(rep.Turns, t)
			rep.Stop = StopNoBlock
			return rep, nil
		}
		if len(calls) > 0 {
			// Every call is answered by its own tool message, which must
			// follow the assistant message that made it; the rest by a
			// user message after them.
			t.Feedback = toolFeedback(answers)
			msgs = append(msgs, Message{Role: "assistant", Content: answer, ToolCalls: calls})
			msgs = append(msgs, answers...)
			if len(answered) > 0 {
				fb := string(protocol.Feedback(answered))
				t.Feedback += "\n" + fb
				msgs = append(msgs, Message{Role: "user", Content: fb})
			}
			rep.Turns = append(rep.Turns, t)
			continue
		}
		t.Feedback = string(protocol.Feedback(t.Results))
		if limited {
			// Not the model's choice to stop: without this it would not
			// know that the end of its answer never arrived.
			note := "Your answer was cut at the output limit (finish_reason: length): nothing after the cut arrived. The blocks before it are answered below; send the rest in your next answer, in smaller blocks."
			if len(items) == 0 {
				note = "Your answer was cut at the output limit (finish_reason: length) before any instruction block was complete: nothing was applied. Go on, in shorter answers."
			}
			t.Feedback = strings.TrimRight(note+"\n\n"+t.Feedback, "\n") + "\n"
		}
		rep.Turns = append(rep.Turns, t)
		for _, r := range t.Results {
			if r.Step != nil && r.Step.Finish && r.Status != step.StatusSkipped {
				rep.Stop, rep.Finished = StopFinished, r.Step.Summary
				return rep, nil
			}
		}
		msgs = append(msgs, Message{Role: "assistant", Content: answer}, Message{Role: "user", Content: t.Feedback})
	}
}

// InterruptedError is a run stopped by its context (Ctrl-C): the answer in
// flight was not applied, or was taken back whole; or, Kept, the interrupt
// came once it was applied, and no further turn was asked.
type InterruptedError struct {
	Turn int
	Err  error
	Kept bool
}

func (e *InterruptedError) Error() string {
	if e.Kept {
		return fmt.Sprintf("interrupted after turn %d was applied (%v): its steps are committed; no further turn was asked", e.Turn, e.Err)
	}
	return fmt.Sprintf("interrupted in turn %d (%v): that turn's answer was not applied or was taken back; earlier turns stay", e.Turn, e.Err)
}

// committed reports whether a step of the turn made a commit that stays
// (the report on live programs, which the run's end adds, is not a step).
func (t *Turn) committed() bool {
	for _, r := range t.Results {
		if !r.Runtime && (r.Commit != "" || r.ProgramCommit != "") {
			return true
		}
	}
	return false
}

// Unwrap returns the context's error.
func (e *InterruptedError) Unwrap() error { return e.Err }

// Class: the turn was not done; nothing of it remains.
func (e *InterruptedError) Class() step.Class { return step.ClassStepFailed }

// Hint says what to do.
func (e *InterruptedError) Hint() string {
	return "review the steps with autocoder log; run autocoder run again to go on"
}

// Is lets errors.Is(err, context.Canceled) see through.
func (e *InterruptedError) Is(target error) bool { return errors.Is(e.Err, target) }

func outcome(rs []step.Result) string {
	if len(rs) == 0 {
		return "no instruction block"
	}
	s, _ := tally(rs)
	for _, r := range rs {
		if r.Step != nil && r.Step.Finish {
			s = strings.TrimPrefix(s+", finish", ", ")
		}
	}
	return s
}

// tally counts the steps of rs by their outcome (step.StepOutcome),
// "2 applied, 1 rolled back", then the programs that were refused, failed
// or timed out in steps that were not failed themselves, and says how
// many steps there are: the report on live programs and the finish step
// are not steps.
func tally(rs []step.Result) (string, int) {
	count := map[step.Outcome]int{}
	steps := 0
	for _, r := range rs {
		if r.Runtime || r.Step != nil && r.Step.Finish {
			continue
		}
		steps++
		count[step.StepOutcome(r)]++
	}
	var parts []string
	for _, o := range []step.Outcome{step.OutcomeApplied, step.OutcomeAlreadyApplied, step.OutcomeNoOp, step.OutcomeRead,
		step.OutcomeRefused, step.OutcomeFailed, step.OutcomeRolledBack, step.OutcomeNotAttempted} {
		if count[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[o], o.Words()))
		}
	}
	progs := map[step.ProgramStatus]int{}
	for _, r := range rs {
		if r.Runtime {
			continue // a live program's report: its step counted it
		}
		if o := step.StepOutcome(r); o == step.OutcomeFailed || o == step.OutcomeRefused || o == step.OutcomeRolledBack || o == step.OutcomeNotAttempted {
			continue
		}
		for _, p := range r.Programs {
			progs[p.Status]++
		}
	}
	for _, k := range []struct {
		status step.ProgramStatus
		word   string
	}{{step.ProgramRefused, "refused"}, {step.ProgramFailure, "failed"}, {step.ProgramTimeout, "timed out"}} {
		if n := progs[k.status]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d program%s %s", n, plural(n), k.word))
		}
	}
	return strings.Join(parts, ", "), steps
}

// troubles writes, as turn n is done, the error and hint of each step of
// rs that failed or was refused, and of each program that was refused,
// failed or timed out: the reason at once, not only in the run record.
// refusedHint, when it gives one, is the hint of a refused program.
func troubles(w io.Writer, n int, rs []step.Result, refusedHint func(step.Program) string) {
	for _, r := range rs {
		switch step.StepOutcome(r) {
		case step.OutcomeFailed, step.OutcomeRefused:
			where := ""
			if r.Op == 0 && r.Line > 0 {
				where = fmt.Sprintf(" (answer line %d)", r.Line)
			}
			report.Error(w, fmt.Sprintf("turn %d: step %s %s%s: %s", n, r.StepID, step.StepOutcome(r).Words(), where, r.Error), r.Hint)
			continue
		case step.OutcomeRolledBack, step.OutcomeNotAttempted:
			continue // the step that failed says why
		}
		for i, p := range r.Programs {
			switch p.Status {
			case step.ProgramRefused, step.ProgramFailure, step.ProgramTimeout:
			default:
				continue
			}
			msg := fmt.Sprintf("turn %d: step %s: program %s: %s", n, r.StepID, p.Name, p.Status)
			if p.Status != step.ProgramRefused {
				msg += fmt.Sprintf(" (exit code %d)", p.ReturnCode)
			}
			if p.Error != "" {
				msg += ": " + p.Error
			}
			hint := p.Hint
			if p.Status == step.ProgramRefused && refusedHint != nil && r.Step != nil && i < len(r.Step.Programs) {
				if h := refusedHint(r.Step.Programs[i]); h != "" {
					hint = h
				}
			}
			report.Error(w, msg, hint)
		}
	}
}

func count(n int64) string { return fmt.Sprintf("%d", n) }

func estimated(u Usage) string {
	if u.Estimated {
		return " (estimated)"
	}
	return ""
}
