package txn

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
)

// Report is what a run did: everything a command says about it, decided by
// the engine so that apply, the bridge and `run` say the same.
type Report struct {
	Results []step.Result
	// Patch is a dry run's whole patch: one file patch per touched path,
	// from the repository as the run found it to what its planned steps
	// leave, a moved file in git's rename form. git apply and patch -p1
	// accept it (the per-op diffs of the results, applied one after the
	// other, patch --dry-run does not: it reads every file patch against
	// the unchanged file). With Atomic, when a step fails the run would
	// take every step back, so none is planned and the patch is empty.
	// "" when not a dry run.
	Patch string
	// Branch is the work branch HEAD is on after the run, without
	// refs/heads/; "" when HEAD is not (or no longer) on a work branch.
	Branch string
	// From is set when the run moved HEAD from another branch onto a new
	// work branch: the branch it left. Earlier is then the newest work
	// branch made from From before this one ("" if none), and
	// StartCommit the commit the run started from, 12 digits ("" when
	// HEAD was unborn).
	From, Earlier, StartCommit string
	// Warnings are things the user should know that are not a step's
	// result (a dry run during a rebase: apply itself would be refused).
	Warnings []Warning
}

// Warning is a note for the user with what to do about it.
type Warning struct{ Msg, Hint string }

// Execute runs items as Run does (or plans them, with o.DryRun) and
// reports the run as a command prints it. With o.StopLive set, programs
// that keep running end with the run, each result saying o.StopLive
// (apply and the bridge are one shot; `autocoder run` keeps them across
// turns).
func (e *Engine) Execute(ctx context.Context, items []step.Item, o RunOptions) Report {
	before, _ := e.repo.ReadHEAD()
	var rep Report
	rep.Results, rep.Patch = e.run(ctx, items, o)
	if o.DryRun {
		// A dry run shows the plan during a rebase or a merge too; the
		// user is told that apply itself would be refused until it ends.
		var ip *gitops.InProgressError
		if err := e.repo.InProgress(); errors.As(err, &ip) {
			rep.Warnings = append(rep.Warnings, Warning{
				Msg:  fmt.Sprintf("apply itself would be refused now: a git %s is in progress (%s exists)", ip.State, ip.Marker),
				Hint: fmt.Sprintf("finish or abort the %s first (%s), then apply", ip.State, ip.Ends)})
		}
	}
	return e.finish(before, rep, o.StopLive)
}

// Choice is the user's answer about one step (apply -i).
type Choice int

// The answers: apply the step, skip it, quit (skip it and every step
// after it), or the question was interrupted (Ctrl-C, SIGTERM: nothing
// undecided is applied).
const (
	ChoiceApply Choice = iota
	ChoiceSkip
	ChoiceQuit
	ChoiceInterrupted
)

// Interactive is apply -i: for each step, ask gets the step's plan (a dry
// run of it alone, against what the steps before it left) and decides.
// A step whose plan fails is reported as failed and ends the questions;
// once ctx ends or the user quits, the remaining steps are skipped and
// say why. stopLive is as Execute's RunOptions.StopLive.
func (e *Engine) Interactive(ctx context.Context, items []step.Item, ask func(plan Report) Choice, stopLive string) Report {
	before, _ := e.repo.ReadHEAD()
	var rep Report
	quit, failed, interrupted := false, false, false
	for _, it := range items {
		interrupted = interrupted || ctx.Err() != nil
		if quit || failed || interrupted {
			r := step.Result{Status: step.StatusSkipped, ParseErr: it.Err}
			if it.Step != nil {
				r.Step, r.StepID = it.Step, it.Step.ID
			}
			switch {
			case interrupted:
				r.Error = "not applied: interrupted before this step"
			case quit:
				r.Error = "not applied: you quit before this step"
			}
			rep.Results = append(rep.Results, r)
			continue
		}
		var plan Report
		plan.Results, plan.Patch = e.run(ctx, []step.Item{it}, RunOptions{DryRun: true})
		if plan.Results[0].Status == step.StatusFailed {
			rep.Results = append(rep.Results, plan.Results[0])
			failed = true
			continue
		}
		skip := func(why string) {
			rep.Results = append(rep.Results, step.Result{Step: it.Step, StepID: it.Step.ID, Status: step.StatusSkipped, Error: why})
		}
		switch ask(plan) {
		case ChoiceApply:
			r, _ := e.run(ctx, []step.Item{it}, RunOptions{})
			rep.Results = append(rep.Results, r...)
			failed = r[0].Status == step.StatusFailed
		case ChoiceSkip:
			skip("not applied: you skipped it")
		case ChoiceInterrupted:
			interrupted = true
			skip("not applied: interrupted at its question")
		default:
			quit = true
			skip("not applied: you quit here")
		}
	}
	return e.finish(before, rep, stopLive)
}

// finish completes a run's report: the programs that end with it, and
// where HEAD went from before.
func (e *Engine) finish(before gitops.Head, rep Report, stopLive string) Report {
	if stopLive != "" {
		rep.Results = append(rep.Results, e.Live(true, stopLive)...)
	}
	rep.Branch, _ = e.Head()
	if rep.Branch != "" && "refs/heads/"+rep.Branch != before.Branch {
		rep.From = strings.TrimPrefix(before.Branch, "refs/heads/")
		rep.Earlier = e.earlierWorkBranch(rep.From, rep.Branch)
		if !before.Hash.IsZero() {
			rep.StartCommit = before.Hash.String()[:12]
		}
	}
	return rep
}

// earlierWorkBranch is the newest work branch made from the branch from
// before made, or "".
func (e *Engine) earlierWorkBranch(from, made string) string {
	names := e.WorkBranchesFrom(from)
	switch i := slices.Index(names, made); {
	case i > 0:
		return names[i-1]
	case i < 0 && len(names) > 0:
		return names[len(names)-1]
	}
	return ""
}

// Head is where HEAD is: the work branch it is on, without refs/heads/
// ("" when HEAD is not on a work branch), and the commit it resolves to
// ("" when unborn or unreadable).
func (e *Engine) Head() (workBranch, commit string) {
	h, err := e.repo.ReadHEAD()
	if err != nil {
		return "", ""
	}
	if !h.Hash.IsZero() {
		commit = h.Hash.String()
	}
	b := strings.TrimPrefix(h.Branch, "refs/heads/")
	if h.Branch == "" || !strings.HasPrefix(b, e.opts.BranchPrefix) {
		b = ""
	}
	return b, commit
}

// Subject is the commit subject a step gets (see the package function).
func (e *Engine) Subject(s *step.Step) string { return Subject(s, e.repo.Root) }

// Root is the repository's work tree.
func (e *Engine) Root() string { return e.repo.Root }

// Private is autocoder's own folder in the repository (under .git), where
// the bridge keeps its request log and `run` its conversations.
func (e *Engine) Private() *gitops.Private { return e.priv }
