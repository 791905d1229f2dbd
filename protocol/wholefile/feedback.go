package wholefile

import (
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/step"
)

// Feedback answers whole-file writes as aider does ("Applied edit to
// path"), with what autocoder adds: the commit, why a write failed and what
// to send instead, and which writes were not attempted. A failure asks for
// the whole file again under its path line, the one form this reader takes.
func Feedback(results []step.Result) []byte {
	var b strings.Builder
	failed := 0
	for i, r := range results {
		if i > 0 {
			b.WriteString("\n")
		}
		if r.Step == nil && r.ParseErr != nil {
			failed++
			e := r.ParseErr
			fmt.Fprintf(&b, "The block at line %d could not be read: %s\n", e.Pos.Line, e.Msg)
			if e.Fix != "" {
				fmt.Fprintf(&b, "hint: %s\n", e.Fix)
			}
			continue
		}
		p := ""
		if src, ok := r.Step.Source.(Source); ok {
			p = src.Path
		} else if len(r.Step.Ops) > 0 {
			p = r.Step.Ops[0].Path
		}
		if p == "" {
			p = "no file"
		}
		short := r.Commit
		if len(short) > 12 {
			short = short[:12]
		}
		switch r.Status {
		case step.StatusApplied:
			fmt.Fprintf(&b, "Applied edit to %s", p)
			if short != "" {
				fmt.Fprintf(&b, " (commit %s)", short)
			}
			b.WriteString(".\n")
		case step.StatusPlanned:
			fmt.Fprintf(&b, "Would write %s (dry run: nothing changed).\n", p)
		case step.StatusUnchanged:
			why := "it already has this content"
			for _, o := range r.Ops {
				for _, rr := range o.Replaces {
					switch {
					case rr.NoOp:
						why = "the old and new texts are equal (a no-op; send only edits that change something)"
					case rr.AlreadyApplied:
						why = "the edit is already in the file"
					}
				}
			}
			fmt.Fprintf(&b, "No change to %s: %s.\n", p, why)
		case step.StatusRead:
			fmt.Fprintf(&b, "Read %s.\n", p)
		case step.StatusSkipped:
			fmt.Fprintf(&b, "Not attempted (%s): an earlier edit failed. Send it again after fixing that one.\n", p)
		case step.StatusRolledBack:
			fmt.Fprintf(&b, "Rolled back (%s): it applied, then a later edit failed and --atomic took the whole answer back.\n", p)
		case step.StatusFailed:
			failed++
			if r.Class == step.ClassRefused {
				fmt.Fprintf(&b, "Refused to write %s (the safety policy): nothing of it was applied.\n", p)
			} else {
				fmt.Fprintf(&b, "Failed to write %s: nothing of it was applied.\n", p)
			}
			if r.Error != "" {
				fmt.Fprintf(&b, "%s\n", r.Error)
			}
			if r.Hint != "" {
				fmt.Fprintf(&b, "hint: %s\n", r.Hint)
			}
		default:
			fmt.Fprintf(&b, "%s: %s\n", p, r.Status)
		}
		for _, o := range r.Ops {
			if o.Diff != "" {
				fmt.Fprintf(&b, "```diff\n%s```\n", o.Diff)
			}
			if o.Message != "" && r.Status != step.StatusSkipped {
				fmt.Fprintf(&b, "%s: %s\n", o.Path, o.Message)
			}
		}
		for _, pr := range r.Programs {
			fmt.Fprintf(&b, "Program %s: %s (exit %d)\n", pr.Name, pr.Status, pr.ReturnCode)
			for _, s := range []struct{ k, v string }{{"stdout", pr.Stdout}, {"stderr", pr.Stderr}, {"error", pr.Error}, {"hint", pr.Hint}} {
				if s.v != "" {
					fmt.Fprintf(&b, "%s: %s\n", s.k, strings.TrimRight(s.v, "\n"))
				}
			}
		}
	}
	if failed > 0 {
		b.WriteString("\nTo write a file, put its path on the line right above the opening fence and the file's whole content inside the fence:\n\nsrc/app.py\n```python\ndef add(a, b):\n    return a + b\n```\n")
	}
	return []byte(b.String())
}
