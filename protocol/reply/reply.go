// Package reply is the skeleton that the feedback of a patch format shares
// (applypatch and udiff): one answer per result, in order; a block that
// could not be read gets its line, what is wrong, the hint and the
// smallest correct example; a block that applied gets its files and the
// engine's notes; the other statuses one line each. Each format brings its
// words (Words), so that the model reads what its own tool would print.
package reply

import (
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/step"
)

// Words are what a format says in each case. The strings with verbs take,
// in order, the block's line and (Unreadable, Failed, Refused) the message.
type Words struct {
	Unreadable string // a block that could not be read: line, message
	NotRead    string // then: nothing of it was applied
	Example    string // then: the smallest correct block
	// Applied and Planned write the lines of a block that applied, or
	// would in a dry run.
	Applied, Planned func(b *strings.Builder, r step.Result, line int)
	NoOp             string // a block whose removed and added lines are equal
	Already          string // a block already applied
	// Skipped writes the lines of a block not attempted.
	Skipped         func(b *strings.Builder, r step.Result, line int)
	RolledBack      string // line
	Failed, Refused string // line, error; Refused for the safety policy's refusals
	Retry           string // after a failure: nothing applied, send it again
}

// Feedback is the answer to every result, blank lines between them.
func Feedback(results []step.Result, w Words) []byte {
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteByte('\n')
		}
		write(&b, r, w)
	}
	return []byte(b.String())
}

func write(b *strings.Builder, r step.Result, w Words) {
	if r.Step == nil && r.ParseErr != nil {
		e := r.ParseErr
		fmt.Fprintf(b, w.Unreadable, e.Pos.Line, e.Msg)
		if e.Quote != "" {
			fmt.Fprintf(b, "near: %s\n", e.Quote)
		}
		if e.Fix != "" {
			fmt.Fprintf(b, "hint: %s\n", e.Fix)
		}
		b.WriteString(w.NotRead)
		b.WriteString(w.Example)
		return
	}
	line := 0
	if r.Step != nil {
		line = r.Step.Pos.Line
	}
	switch r.Status {
	case step.StatusApplied:
		w.Applied(b, r, line)
		writeNotes(b, r)
	case step.StatusUnchanged:
		if step.StepOutcome(r) == step.OutcomeNoOp {
			b.WriteString(w.NoOp)
		} else {
			b.WriteString(w.Already)
		}
		writeNotes(b, r)
	case step.StatusPlanned:
		w.Planned(b, r, line)
	case step.StatusSkipped:
		w.Skipped(b, r, line)
	case step.StatusRolledBack:
		fmt.Fprintf(b, w.RolledBack, line)
	default:
		f := w.Failed
		if r.Class == step.ClassRefused {
			f = w.Refused
		}
		fmt.Fprintf(b, f, line, r.Error)
		if r.Hint != "" {
			fmt.Fprintf(b, "hint: %s\n", r.Hint)
		}
		for _, op := range r.Ops {
			if op.Status == step.StatusRolledBack {
				fmt.Fprintf(b, "taken back: %s %s, which had applied\n", op.Kind, op.Path)
			}
		}
		b.WriteString(w.Retry)
	}
}

// writeNotes adds what the model should know of a block that applied:
// hunks or chunks already applied, no-op ones: what the engine said of
// each file it replaced in.
func writeNotes(b *strings.Builder, r step.Result) {
	for _, op := range r.Ops {
		if op.Kind == step.OpReplace && op.Message != "" && op.Message != "replaced" {
			fmt.Fprintf(b, "note: %s: %s\n", op.Path, op.Message)
		}
	}
}
