package txn

import (
	"context"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
)

// RunOptions change how Run applies a response.
type RunOptions struct {
	Atomic bool // all steps or none
	DryRun bool // change nothing; each op result carries its unified diff
	// OnResult, when set, is called with each step's result as soon as the
	// step is done (for progress, and for timing steps one by one).
	OnResult func(step.Result)
	// UndoOnCancel takes back every step of the run, as Atomic does, when
	// ctx ends before Run returns: `autocoder run` applies one model answer
	// per Run, and Ctrl-C must not leave half an answer on the branch.
	UndoOnCancel bool
	// StopLive, when set, ends the programs that keep running with the
	// run (Execute), each result saying StopLive: one-shot callers.
	StopLive string
}

// Run applies items in document order and stops at the first failure: a
// step that fails leaves no trace, earlier steps stay (unless Atomic), later
// ones are reported as skipped. An unreadable block counts as a failed step.
func (e *Engine) Run(ctx context.Context, items []step.Item, o RunOptions) (results []step.Result) {
	results, _ = e.run(ctx, items, o)
	return results
}

// refused is s's result when it was refused before anything of it was
// read or written, for err.
func refused(s *step.Step, err error) step.Result {
	r := step.Result{Step: s, StepID: s.ID}
	return failed(&r, err, false)
}

func (e *Engine) run(ctx context.Context, items []step.Item, o RunOptions) (results []step.Result, patch string) {
	// Between two Runs of one engine (the answers of `autocoder run`), the
	// user, or a program that keeps running, may have added a submodule or
	// changed a .gitattributes.
	e.forgetChanged()
	// And the repository's format (a session's call checks it in Refresh):
	// the steps of an answer given after git refs migrate are refused.
	formatErr := e.repo.FormatStill()
	overlay := map[string]*file{}
	p := &dryPlan{base: map[string]*file{}, movedFrom: map[string]string{}}
	failed := false
	defer func() {
		if o.DryRun && !(failed && o.Atomic) {
			patch = p.patch(overlay)
		}
	}()
	start, startErr := e.repo.ReadHEAD()
	if !o.DryRun {
		absent := e.absentOwnFiles()
		defer func() { e.clearTraces(absent, results) }()
	}
	e.batch = true
	defer func() { e.batch = false }()
	// --atomic: a failed run must leave even the redo stack as it was,
	// the other worktrees' stacks of the branch too (its first step
	// empties them: see clearOtherRedo).
	savedRedo := e.readRedo(start.Branch)
	var savedOthers map[string][]byte
	if o.Atomic && !o.DryRun {
		savedOthers = e.saveOtherRedo(start.Branch)
	}
	notesStart, _, _ := e.repo.ResolveRef(gitops.NotesRef)
	for _, it := range items {
		if failed {
			r := step.Result{Status: step.StatusSkipped}
			if it.Step != nil {
				r.Step, r.StepID = it.Step, it.Step.ID
				notAttempted(&r, "an earlier step failed")
			} else {
				r.ParseErr = it.Err
			}
			results = append(results, r)
			continue
		}
		var r step.Result
		switch {
		case it.Err != nil:
			// Among readable blocks, an unreadable one is a failed step
			// (exit code 1); it is no_block only when no block is readable.
			r = step.Unreadable(it.Err, false)
		case formatErr != nil:
			r = refused(it.Step, formatErr)
		case o.DryRun:
			r = e.dryRun(it.Step, overlay, p)
		default:
			r = e.Apply(ctx, it.Step)
		}
		results = append(results, r)
		if o.OnResult != nil {
			o.OnResult(r)
		}
		if r.Status == step.StatusFailed {
			failed = true // a failed step stops the run, in every dialect
		}
	}
	var flushFailed *step.Result
	if err := e.Flush(); err != nil {
		flushFailed = &step.Result{StepID: "index", Status: step.StatusFailed, Error: err.Error(), Hint: step.HintOf(err), Class: step.ClassOf(err), Reason: reasonOf(err, true)}
		failed = true // the run did not complete: --atomic takes it back
	}
	defer func() {
		if flushFailed != nil {
			results = append(results, *flushFailed)
		}
	}()
	if failed && o.Atomic && o.DryRun {
		// --atomic would take back every step it applied: a dry run of it
		// plans none, and says why.
		const why = "not applied: a later step fails, and --atomic applies all steps or none (dry run: nothing was changed)"
		for i := range results {
			if results[i].Status != step.StatusPlanned {
				continue
			}
			results[i].Status, results[i].Error, results[i].Reason = step.StatusFailed, why, step.ReasonRolledBack
			for j := range results[i].Ops {
				if results[i].Ops[j].Status == step.StatusPlanned {
					results[i].Ops[j].Status, results[i].Ops[j].Message = step.StatusSkipped, why
				}
				results[i].Ops[j].Diff = ""
			}
		}
	}
	interrupted := o.UndoOnCancel && ctx != nil && ctx.Err() != nil
	rollback := (failed && o.Atomic || interrupted) && !o.DryRun && startErr == nil
	if rollback {
		err := e.rollbackTo(start, savedRedo)
		if err == nil {
			err = e.Flush()
		}
		if err != nil {
			results = append(results, step.Result{StepID: "atomic-rollback", Status: step.StatusFailed,
				Error: "--atomic: could not take back the applied steps: " + err.Error(), Hint: step.HintOf(err), Class: step.ClassOf(err)})
			return results, ""
		}
		if start.Branch != "" {
			e.writeRedo(start.Branch, savedRedo)
		}
		e.restoreOtherRedo(start.Branch, savedOthers)
		e.resetNotes(notesStart)
		for i := range results {
			if results[i].Status == step.StatusApplied {
				results[i].Status = step.StatusFailed
				results[i].Error = "rolled back by --atomic: a later step failed"
				why := "a later step failed and --atomic took this one back"
				if interrupted {
					results[i].Error = "rolled back: the run was interrupted before it ended"
					why = "the run was interrupted and took this step back"
				}
				results[i].Reason = step.ReasonRolledBack
				results[i].Commit, results[i].ProgramCommit = "", ""
				rolledBack(&results[i], why)
			}
		}
	}
	return results, ""
}
