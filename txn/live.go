package txn

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/autocoder/autocoder/runner"
	"github.com/autocoder/autocoder/step"
)

// LivePolicy is a ProgramPolicy that can also start a program that keeps
// running after its step (step.Program.Live: a server, a watcher):
// runner.Policy.
type LivePolicy interface {
	ProgramPolicy
	// Start starts p in dir and returns at once; the program ends when
	// ctx does, at its own timeout, or at its Stop. Its Report is what it
	// wrote since the last Report and whether it has ended on its own.
	Start(ctx context.Context, dir string, p step.Program) (*runner.LiveProgram, error)
}

// liveProgram is a live program the engine keeps running between steps.
type liveProgram struct {
	name string
	step *step.Step // the step that started it: its dialect answers for it
	prog step.Program
	h    *runner.LiveProgram
	// revoked is its answer once stopped because the settings read
	// again no longer allow it (SetPolicy), for the next Live to give.
	revoked *step.ProgramResult
}

// revokeLive stops the live programs that programs (the policy of
// settings read again) no longer allows: a server started while the
// repository's file was trusted does not go on running its code after
// autocoder untrust. The next Live reports each as stopped, and why.
func (e *Engine) revokeLive(programs ProgramPolicy) {
	for _, l := range e.live {
		if l.revoked != nil {
			continue
		}
		ok, why := false, "programs are off"
		if programs != nil {
			ok, why = programs.Allowed(l.prog)
		}
		if ok {
			continue
		}
		r := l.h.Stop()
		if r.Status == step.ProgramTerminated {
			r.Error = strings.TrimSpace("stopped: the settings read again no longer allow it (" + why + "). " + r.Error)
		}
		l.revoked = &r
	}
}

// startLive starts a live program of s, or answers why it did not start.
func (e *Engine) startLive(ctx context.Context, s *step.Step, p step.Program, name, dir string) step.ProgramResult {
	res := step.ProgramResult{Name: name, ReturnCode: -1}
	lp, ok := e.opts.Programs.(LivePolicy)
	if !ok {
		res.Status, res.Error = step.ProgramFailure, "this autocoder cannot keep a program running"
		res.Hint = "run the program without keep_running, with a timeout it ends within"
		return res
	}
	if e.findLive(name) >= 0 {
		res.Status, res.Error = step.ProgramFailure, fmt.Sprintf("a program named %q is running already", name)
		res.Hint = "stop it first with check_program (terminal: true), or give this one another name"
		return res
	}
	h, err := lp.Start(ctx, dir, p)
	if err != nil {
		res.Status, res.Error, res.Hint = step.ProgramFailure, err.Error(), step.HintOf(err)
		return res
	}
	e.live = append(e.live, &liveProgram{name: name, step: s, prog: p, h: h})
	res.Status = step.ProgramRunning
	res.Error = "started and still running: its new output comes with each answer until it ends or a check_program with terminal: true stops it"
	return res
}

// liveOwns reports whether path became dirty while live programs ran, so
// that it is theirs, not the user's: their report at the turn's end
// commits it.
func (e *Engine) liveOwns(path string) bool {
	if len(e.live) == 0 || e.liveBefore == nil {
		return false
	}
	_, dirtyBefore := e.liveBefore[path]
	return !dirtyBefore
}

func (e *Engine) findLive(name string) int {
	for i, l := range e.live {
		if l.name == name {
			return i
		}
	}
	return -1
}

// stopLive is check_program's terminal: true for the program name.
func (e *Engine) stopLive(name string) step.ProgramResult {
	i := e.findLive(name)
	if i < 0 {
		return step.ProgramResult{Name: name, Status: step.ProgramSuccess, ReturnCode: -1,
			Stdout: "not running: no live program of this name is running (it ended, was stopped, or never started), so there is nothing to stop"}
	}
	l := e.live[i]
	e.live = append(e.live[:i], e.live[i+1:]...)
	if len(e.live) == 0 {
		e.liveBefore = nil
	}
	r := l.h.Stop()
	r.Name = name
	if r.Status == step.ProgramTerminated {
		r.Error = strings.TrimSpace("stopped by check_program terminal: true, with every process it started. " + r.Error)
	}
	return r
}

// Live reports on the live programs: for each, what it wrote since the last
// report, whether it still runs (or how it ended, then it is dropped);
// with stop, every one is stopped first and why says why in its answer.
// Files they created or changed since they started are committed as a
// program commit, the user's own uncommitted work left out as for other
// programs. There is one result per dialect of the steps that started them
// (Result.Runtime), nil when no live program is known.
func (e *Engine) Live(stop bool, why string) []step.Result {
	if len(e.live) == 0 {
		return nil
	}
	var out []step.Result
	at := map[string]int{}
	var progs []step.Program
	first := e.live[0].step
	var keep []*liveProgram
	for _, l := range e.live {
		var r step.ProgramResult
		if l.revoked != nil {
			r = *l.revoked // stopped already, and done
		} else if stop {
			r = l.h.Stop()
			if r.Status == step.ProgramTerminated {
				r.Error = strings.TrimSpace(why + " " + r.Error)
			}
		} else {
			var done bool
			if r, done = l.h.Report(); !done {
				keep = append(keep, l)
			}
		}
		r.Name = l.name
		progs = append(progs, l.prog)
		d := l.step.Dialect
		i, ok := at[d]
		if !ok {
			i = len(out)
			at[d] = i
			id := fmt.Sprintf("fb-%d", e.liveSeq+1)
			out = append(out, step.Result{Step: &step.Step{ID: id, Reason: "the programs that keep running", Dialect: d},
				StepID: id, Status: step.StatusRead, Runtime: true})
		}
		out[i].Programs = append(out[i].Programs, r)
	}
	e.live = keep
	e.liveSeq++
	last := &out[len(out)-1].Programs[len(out[len(out)-1].Programs)-1]
	if err := e.Flush(); err != nil {
		last.Error = strings.TrimSpace(last.Error + "\ncould not look for the files the programs changed: " + err.Error())
		return out
	}
	// What they wrote is read as git reads it now: they may have written
	// a .gitattributes, changed git's configuration or added a submodule
	// since the steps read them.
	e.forgetChanged()
	now, err := e.dirtyState()
	if err != nil {
		last.Error = strings.TrimSpace(last.Error + "\ncould not look for the files the programs changed: " + err.Error())
		return out
	}
	var mine, theirs, big []string
	for p, sum := range now {
		switch old, was := e.liveBefore[p]; {
		case !was && strings.HasPrefix(sum, bigPrefix):
			big = append(big, p)
		case !was:
			mine = append(mine, p)
		case old != sum:
			theirs = append(theirs, p)
		}
	}
	if len(theirs) > 0 {
		sort.Strings(theirs)
		last.Error = strings.TrimSpace(last.Error + "\nleft uncommitted, because they held your own uncommitted work: " + strings.Join(theirs, ", "))
	}
	if len(big) > 0 {
		sort.Strings(big)
		last.Error = strings.TrimSpace(last.Error + fmt.Sprintf("\nleft uncommitted, because they are over the limit of %d bytes ([apply] max_file_bytes): %s",
			e.opts.MaxFileBytes, strings.Join(big, ", ")))
	}
	sort.Strings(mine)
	if len(mine) > 0 {
		ps := &step.Step{ID: fmt.Sprintf("%s.live%d", first.ID, e.liveSeq), Dialect: first.Dialect, Programs: progs}
		commit, err := e.commitProgramOutput(ps, mine)
		switch {
		case err != nil:
			last.Error = strings.TrimSpace(last.Error + "\ncould not commit the files the programs changed: " + err.Error())
		case commit != "":
			out[len(out)-1].ProgramCommit = commit
		}
	}
	if len(e.live) == 0 {
		e.liveBefore = nil
	}
	return out
}
