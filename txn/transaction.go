package txn

// A transaction moves a plan's paths, index entries, ref and HEAD forward,
// or back: execute and moveTo. The pieces it uses each have a file of their
// own: journal.go (the plan and its file), indexbatch.go (index.lock held
// across a run, written once), refmove.go (ref and HEAD locks), place.go
// (worktree files), recover.go (finishing what a killed run left).

import (
	"fmt"
	"os"

	"github.com/autocoder/autocoder/gitops/index"
	"github.com/autocoder/autocoder/step"
)

// execute runs a plan as a transaction: journal, move forward, clear; on a
// failure move back and clear. held is an index lock the caller already
// holds (with the index read under it), or nil.
func (e *Engine) execute(p *plan, held *heldIndex) error {
	defer e.repo.ObjectsWritten() // the plan's objects (buildCommit), whatever happens
	if _, err := os.Stat(e.journalPath()); err == nil {
		// A rollback that failed kept its journal: a new one must not
		// overwrite it. The next Open recovers it.
		return &unwrittenError{&step.Error{Msg: "an interrupted transaction's journal is still in " + e.journalPath(),
			Fix: "run any autocoder command again: it finishes that transaction first"}}
	}
	if err := e.writeJournal(p); err != nil {
		return &unwrittenError{err}
	}
	if err := e.crash.point(); err != nil {
		e.clearJournal()
		return err
	}
	if wrote, err := e.moveTo(p, true, held); err != nil {
		if !wrote {
			// Refused before the first write (a lock held by git, a moved
			// ref): there is nothing to take back.
			e.clearJournal()
			return &unwrittenError{err}
		}
		p.only = p.reached
		if p.only == nil {
			p.only = map[string]bool{}
		}
		// The journal says so before the rollback writes anything: if the
		// rollback fails too, or the process is killed during it, the
		// next command finishes it (Back), even where the ref had moved.
		// Where this write fails, recovery goes by the ref, as before.
		p.Back = true
		backErr := errInjected
		if !e.crash.failBack {
			backErr = e.writeJournal(p)
		}
		if _, rb := e.moveTo(p, false, nil); rb != nil {
			next, kept := e.nextFinishes(p, backErr)
			err = fmt.Errorf("%w; rolling back failed too: %v; the journal %s is kept and %s", err, rb, e.journalPath(), next)
			if kept {
				return &keptError{err}
			}
			return err
		}
		e.clearJournal()
		return err
	}
	e.crash.point() // a failure here is past the commit point: ignored
	e.settleRedo(p)
	return e.clearJournal()
}

// nextFinishes says what the next command makes of a failed step whose
// rollback failed too, and whether it keeps the step. Where the journal
// says "back" (backErr is nil), it finishes the rollback. Where it could
// not say so (a full disk), recovery goes by the branch, as after a kill:
// a branch that names the step's commit keeps the step, and the model
// must not be told that it will not be there.
func (e *Engine) nextFinishes(p *plan, backErr error) (next string, kept bool) {
	if backErr == nil {
		return "the next autocoder command finishes the rollback", false
	}
	cur, _, err := e.repo.ResolveRef(p.Ref)
	moved := err == nil && cur == p.NewRef && p.NewRef != p.OldRef
	switch {
	case moved && p.Kind == "apply":
		return fmt.Sprintf("could not record the rollback (%v): the branch names the step's commit, so the next autocoder command keeps the step, as after a crash past its commit point", backErr), true
	case moved:
		// An undo, a redo, --atomic's rollback (which may delete the
		// branch): "keeps the step" would read as the step it moves.
		return fmt.Sprintf("could not record the rollback (%v): the branch is where the %s of %s takes it, so the next autocoder command finishes the %s of %s, as after a crash past its commit point", backErr, p.Kind, p.StepID, p.Kind, p.StepID), true
	case p.Kind == "apply":
		return fmt.Sprintf("could not record the rollback (%v): the branch does not name the step's commit, so the next autocoder command finishes the rollback", backErr), false
	}
	return fmt.Sprintf("could not record the rollback (%v): the branch has not moved, so the next autocoder command finishes taking the %s of %s back", backErr, p.Kind, p.StepID), false
}

// unwrittenError is a plan that execute refused before it wrote anything
// of it: its ops were not attempted, and its result must not say they
// were taken back.
type unwrittenError struct{ err error }

func (e *unwrittenError) Error() string { return e.err.Error() }
func (e *unwrittenError) Unwrap() error { return e.err }

// keptError is a failed move whose rollback failed too, past its commit
// point, which the next command finishes forward (nextFinishes): the step
// is committed, not failed, and its result must say so (apply), or the
// model, told that nothing of it remains, sends it again onto a branch
// that has it.
type keptError struct{ err error }

func (e *keptError) Error() string { return e.err.Error() }
func (e *keptError) Unwrap() error { return e.err }

// moveTo brings the worktree files, the index entries, the ref and HEAD of
// the plan to its New state (forward) or its Old state. It is idempotent,
// so recovery can call it whatever point a killed run had reached.
//
// wrote reports whether anything had been written when it returned.
func (e *Engine) moveTo(p *plan, forward bool, held *heldIndex) (wrote bool, err error) {
	target := func(c pathChange) entry {
		if forward {
			return c.New
		}
		return c.Old
	}
	// Both locks before the first write, so that a lock held by git is a
	// clean refusal rather than a rollback.
	if held == nil {
		if held, err = e.lockIndex(); err != nil {
			return false, err
		}
	}
	refTxn, err := e.lockRef(p, forward)
	if err != nil {
		return false, err
	}
	headTxn, err := e.lockHEAD(p, forward)
	if err != nil {
		if refTxn != nil {
			refTxn.Rollback()
		}
		return false, err
	}
	paths := p.moving()
	prepared := false // the index is written into index.lock (see below)
	release := func() {
		if refTxn != nil {
			refTxn.Rollback()
		}
		if headTxn != nil {
			headTxn.Rollback()
		}
		if prepared {
			e.dropIndex()
		}
	}
	// Worktree files. Deletions first, so a file may replace a folder that
	// the same plan empties, and the reverse.
	for pass := 0; pass < 2; pass++ {
		for _, c := range paths {
			t := target(c)
			if (pass == 0) == t.Exists {
				continue
			}
			wrote = true
			if p.recovering && !e.isEither(c) {
				p.kept = append(p.kept, c.Path)
				continue
			}
			// placeFile leaves the path as it was when it fails.
			if err := e.placeFile(p, c.Path, t, forward); err != nil {
				release()
				return true, err
			}
			if p.reached == nil {
				p.reached = map[string]bool{}
			}
			p.reached[c.Path] = true
			if err := e.crash.point(); err != nil {
				release()
				return true, err
			}
		}
	}
	if forward {
		for _, d := range p.Dirs {
			if err := os.MkdirAll(e.repo.Abs(d), 0o777); err != nil {
				release()
				return true, fmt.Errorf("create folder %s: %w", d, err)
			}
		}
	} else {
		for i := len(p.NewDirs) - 1; i >= 0; i-- {
			os.Remove(e.repo.Abs(p.NewDirs[i])) // only if empty
		}
	}
	if forward && p.verify != nil {
		if err := p.verify(); err != nil {
			release()
			return true, err
		}
	}
	// Index entries of the touched paths only.
	var set []index.IndexEntry
	var remove []string
	for _, c := range paths {
		t := target(c)
		if !t.Exists {
			remove = append(remove, c.Path)
			continue
		}
		var st index.Stat // blank stat data: git re-reads the file
		if !contains(p.kept, c.Path) {
			fi, err := os.Lstat(e.repo.Abs(c.Path))
			if err != nil {
				release()
				return true, fmt.Errorf("stat %s: %w", c.Path, err)
			}
			st = index.StatOf(fi)
		}
		set = append(set, index.IndexEntry{Path: c.Path, Mode: t.Mode, Hash: t.Hash, Stat: st})
	}
	e.ixCache = nil // Update changes it in memory before it is on disk
	if e.batch {
		if err := e.owe(paths, held.ix); err != nil {
			release()
			return true, fmt.Errorf("record the index entries to write: %w", err)
		}
	}
	if err := held.ix.Update(set, remove); err != nil {
		release()
		return true, fmt.Errorf("update the index: %w", err)
	}
	// A transaction of its own (not a step of a run, which keeps the index
	// in memory to the end: indexbatch.go) writes the index into
	// index.lock here, and puts it in place once the ref has moved, as git
	// commit does: git waits on the lock to the end, and the journal,
	// cleared after, is all recovery needs. A kill before the ref moves
	// has recovery remove the lock and move the entries back with the
	// files (this function, backward); one after has it move them forward.
	// No index debt is owed: its file's write and removal were a tenth of
	// a session's call. The rollback of a forward move that failed before
	// its index was in place writes nothing: the file still holds the
	// entries set here (only the stat data of the files put back differ,
	// and git re-reads those), and writing the whole index again would
	// fail where the forward move failed on a full disk, and keep the
	// journal; Flush lets the lock go.
	rollbackBeforeIndex := !forward && p.only != nil && !p.ixWritten
	if !e.batch && !rollbackBeforeIndex {
		if err := e.prepareIndex(); err != nil {
			release()
			return true, fmt.Errorf("write the index: %w", err)
		}
		prepared = true
	}
	if err := e.crash.point(); err != nil {
		release()
		return true, err
	}
	if forward {
		if err := cancelled(p.ctx); err != nil {
			release()
			return true, err
		}
	}
	// The plan's objects are on disk before HEAD or the ref names them.
	// Going back names none of them: their failure is not the rollback's
	// (execute waits for them at its end).
	if forward {
		if err := e.repo.ObjectsWritten(); err != nil {
			release()
			return true, err
		}
	}
	// HEAD before the ref, in both directions: HEAD's reflog then reads in
	// order (the checkout, then the commit), and a crash between the two
	// leaves the ref unmoved, so recovery goes back.
	if headTxn != nil {
		err := headTxn.Commit()
		headTxn = nil
		if err != nil {
			release()
			return true, err
		}
	}
	if err := e.crash.point(); err != nil {
		release()
		return true, err
	}
	// The branch ref: the commit point of a forward move.
	if refTxn != nil {
		err := refTxn.Commit()
		refTxn = nil
		if err != nil {
			release()
			return true, err
		}
	}
	if !prepared {
		return true, nil
	}
	if err := e.crash.point(); err != nil {
		release()
		return true, err
	}
	prepared = false
	if err := e.finishIndex(); err != nil {
		return true, fmt.Errorf("write the index: %w", err)
	}
	p.ixWritten = forward
	return true, nil
}
