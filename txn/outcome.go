package txn

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
)

// failed marks the result failed by err, with its hint and classes, and
// gives each op its one outcome: the op the failure belongs to (the one
// that failed to resolve, or the one whose path a refusal names: the
// user's uncommitted work, an ignored file) failed or is refused with the
// error; the ops done before it are rolled back because that later part
// of the same step failed, those after it not attempted. A failure that
// belongs to no op (no identity, a lock held, git's state) came before
// anything was written: no op was attempted. written: the failure came
// while the step was being written, which took every op of it back.
func failed(r *step.Result, err error, written bool) step.Result {
	r.Status, r.Error, r.Hint = step.StatusFailed, err.Error(), step.HintOf(err)
	r.Class, r.Reason = step.ClassOf(err), reasonOf(err, written)
	if r.Step != nil {
		r.Line = r.Step.Pos.Line
	}
	blame := -1
	if n := len(r.Ops); n > 0 && r.Ops[n-1].Status == step.StatusFailed {
		blame = n - 1
	} else if !written {
		if blame = opOf(r, pathOf(err)); blame >= 0 {
			op := &r.Ops[blame]
			op.Status, op.Error, op.Hint, op.Message = step.StatusFailed, r.Error, r.Hint, ""
		}
	}
	why := "this step failed before it"
	switch {
	case blame >= 0:
		r.Op = blame + 1
		if r.Step != nil && blame < len(r.Step.Ops) && r.Step.Ops[blame].Pos.Line > 0 {
			r.Line = r.Step.Ops[blame].Pos.Line
		}
		what := "failed"
		if r.Class == step.ClassRefused {
			what = "was refused"
		}
		op := r.Ops[blame]
		which := fmt.Sprintf("(operation %d, %s %s)", blame+1, op.Kind, op.Path)
		for i := range r.Ops {
			if i != blame && r.Ops[i].Status == step.StatusApplied {
				when := "a later"
				if i > blame {
					when = "an earlier"
				}
				r.Ops[i].Status = step.StatusRolledBack
				r.Ops[i].Message = fmt.Sprintf("rolled back, not applied: %s operation of this step %s %s, and the step was taken back whole", when, what, which)
			}
		}
		why = fmt.Sprintf("an earlier operation of this step %s %s", what, which)
		if pathOf(err) != "" && r.Step != nil && blame < len(r.Step.Ops) {
			// The op's error names its place, as an op's own failure does.
			r.Error = (&OpError{Op: &r.Step.Ops[blame], Err: err}).Error()
			r.Ops[blame].Error = err.Error()
		}
	case written:
		rolledBack(r, "the step failed after it and was taken back whole")
	default:
		stopped := "the step failed before it wrote anything"
		if r.Class == step.ClassRefused {
			stopped = "the step was refused before it wrote anything"
		}
		for i := range r.Ops {
			if r.Ops[i].Status == step.StatusApplied {
				r.Ops[i].Status, r.Ops[i].Message = step.StatusSkipped, "not attempted: "+stopped
			}
		}
		why = stopped
	}
	notAttempted(r, why)
	return *r
}

// pathOf is the path a refusal of err is about (the user's uncommitted
// work, a file git ignores), or "": a field of the error, never its text.
func pathOf(err error) string {
	var de *DirtyError
	var ie *gitops.IgnoredError
	switch {
	case errors.As(err, &de):
		return de.Path
	case errors.As(err, &ie):
		return ie.Path
	}
	return ""
}

// opOf is the index of the op of r that touches rel (its path or its
// target, or a folder holding it), or -1.
func opOf(r *step.Result, rel string) int {
	if rel == "" {
		return -1
	}
	for i, op := range r.Ops {
		if op.Path == rel || op.To == rel {
			return i
		}
	}
	for i, op := range r.Ops {
		if op.Path != "" && strings.HasPrefix(rel, op.Path+"/") || op.To != "" && strings.HasPrefix(rel, op.To+"/") {
			return i
		}
	}
	return -1
}

// notApplied rewrites a dry run's failed step: the ops that passed before
// the failure were never applied, so they were not rolled back either; they
// are not applied (skipped) because their step fails, and a step applies
// whole or not at all.
func notApplied(r step.Result) step.Result {
	why := "the step fails after it"
	if slices.ContainsFunc(r.Ops, func(o step.OpResult) bool { return o.Status == step.StatusFailed }) {
		why = "a later operation of this step fails"
	}
	for i := range r.Ops {
		if r.Ops[i].Status != step.StatusRolledBack {
			continue
		}
		r.Ops[i].Status = step.StatusSkipped
		r.Ops[i].Message = "not applied: " + why + ", and a step applies whole or not at all (dry run: nothing was changed)"
	}
	return r
}

// rolledBack marks the ops of r that were done as rolled back: their step
// was taken back whole, so nothing of them remains and no answer may call
// them applied.
func rolledBack(r *step.Result, why string) {
	for i := range r.Ops {
		if r.Ops[i].Status == step.StatusApplied {
			r.Ops[i].Status = step.StatusRolledBack
			r.Ops[i].Message = "rolled back, not applied: " + why
		}
	}
}

// notAttempted completes the result of a step that failed or was skipped:
// each op past those it reports, and each program, was not attempted, and
// says why, so that the feedback answers every operation the model sent.
func notAttempted(r *step.Result, why string) {
	if r.Step == nil {
		return
	}
	for i := len(r.Ops); i < len(r.Step.Ops); i++ {
		op := r.Step.Ops[i]
		r.Ops = append(r.Ops, step.OpResult{Kind: op.Kind, Path: op.Path, To: op.To, Status: step.StatusSkipped,
			Message: "not attempted: " + why})
	}
	for i := len(r.Programs); i < len(r.Step.Programs); i++ {
		p := r.Step.Programs[i]
		if p.Terminate {
			continue // check_program asks to stop, not to run
		}
		r.Programs = append(r.Programs, step.ProgramResult{Name: programName(p, i), Status: step.ProgramNotAttempted,
			ReturnCode: -1, Error: "not attempted: " + why})
	}
}
