package txn

import (
	"os"
	"strings"

	"github.com/autocoder/autocoder/step"
)

// A refused or failed run leaves .git as it found it: no config section for
// a work branch that was never made, none of the engine's own files that
// were not there (loose objects aside, as git leaves them). What a run may
// leave is noted before it and taken back when nothing of it stays.

// ownFiles are the engine's files that replaceFile and retireFile leave
// for reuse.
func (e *Engine) ownFiles() []string {
	return []string{e.journalPath() + ".tmp", e.debtPath() + ".tmp"}
}

// absentOwnFiles lists the engine's own files that do not exist now.
func (e *Engine) absentOwnFiles() []string {
	var out []string
	for _, f := range e.ownFiles() {
		if _, err := os.Lstat(f); err != nil {
			out = append(out, f)
		}
	}
	return out
}

// clearTraces takes back what a run that kept nothing left: the files of
// absent that exist now, and the start records of work branches that were
// never made.
func (e *Engine) clearTraces(absent []string, results []step.Result) {
	e.dropOrphanStarts()
	for _, r := range results {
		if r.Status == step.StatusApplied || r.Commit != "" {
			return // a step stays: its files are the engine's as usual
		}
	}
	for _, f := range absent {
		os.Remove(f)
	}
}

// dropOrphanStarts removes the start records (gitops.SetBranchStart) this
// engine wrote for work branches that do not exist: their first step
// failed, or --atomic took the branch back.
func (e *Engine) dropOrphanStarts() {
	for name, fresh := range e.startsMade {
		if e.repo.BranchExists(name) {
			continue
		}
		if e.repo.DropBranchStart(name, fresh) == nil {
			delete(e.startsMade, name)
		}
	}
}

// refInTheWay refuses a new work branch that a branch in the way keeps git
// from creating ("autocoder" for "autocoder/main"), naming it and the way
// out, before anything is written.
func (e *Engine) refInTheWay(ref string) error {
	other, ok := e.repo.RefInTheWay(ref)
	if !ok {
		return nil
	}
	name := strings.TrimPrefix(ref, "refs/heads/")
	in := strings.TrimPrefix(other, "refs/heads/")
	fix := "rename the branch in the way (git branch -m " + in + " " + in + "-old)"
	if strings.HasPrefix(name, e.opts.BranchPrefix) && strings.HasPrefix(e.opts.BranchPrefix, in+"/") {
		fix += `, or set another [apply] branch_prefix in autocoder.toml (e.g. "ai/")`
	}
	return &BranchError{Name: name, Why: "a branch named " + in + " exists, and git cannot create " + name +
		" beside it (a branch name cannot also be a folder of branches)", Fix: fix}
}
