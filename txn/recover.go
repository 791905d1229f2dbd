package txn

// Recovery: finishing or undoing what a killed run left in the journal,
// the index debt and git's lock files.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
)

// recover finishes or undoes a transaction that a killed process left in
// the journal. The ref write is the commit point: if the ref already holds
// the new commit, the rest is completed; otherwise everything goes back.
func (e *Engine) recover() error {
	if err := e.recoverJournal(); err != nil {
		return err
	}
	if err := e.settleDebt(); err != nil {
		return err
	}
	return e.Flush()
}

func (e *Engine) recoverJournal() error {
	b, err := os.ReadFile(e.journalPath())
	if errors.Is(err, os.ErrNotExist) {
		return e.releaseStaleLocks()
	}
	if err != nil {
		return fmt.Errorf("read journal: %w", err)
	}
	var p plan
	if err := json.Unmarshal(b, &p); err != nil {
		return &step.Error{Msg: "read journal " + e.journalPath(), Err: err,
			Fix: "it is damaged; move it away and check `git status`"}
	}
	if err := e.releaseStaleLocks(); err != nil {
		return err
	}
	if p.Tmp != "" {
		// Only names with this plan's token: the files it created itself.
		for _, c := range p.Paths {
			os.Remove(p.tmpName(e.repo.Root, c.Path))
		}
	}
	p.who = e.recoveryIdentity()
	cur, _, err := e.repo.ResolveRef(p.Ref)
	if err != nil {
		return err
	}
	headNow, _ := e.repo.RawHEAD()
	onOld := e.committedOnOldHEAD(&p, headNow)
	if (cur != p.OldRef && cur != p.NewRef) || (headNow != p.OldHEAD && headNow != p.NewHEAD) || onOld {
		// The user moved on (committed, switched branches) since the crash:
		// the journal describes a state that is gone. Touch nothing but
		// the redo stack of a plan past its commit point (its ref where
		// it takes it): the move is committed though HEAD moved on, and
		// the stack is the branch's, whichever branch HEAD is on now. It
		// is written before the journal goes, as settleRedo is.
		if cur == p.NewRef && p.NewRef != p.OldRef && !p.Back && !onOld {
			e.recoverRedo(&p)
			e.settleRedo(&p)
		}
		kept := e.journalPath() + fmt.Sprintf(".abandoned-%d", e.opts.Now().Unix())
		if err := os.Rename(e.journalPath(), kept); err != nil {
			return err
		}
		var paths []string
		for _, c := range p.Paths {
			paths = append(paths, c.Path)
		}
		moved := strings.TrimPrefix(p.Ref, "refs/heads/")
		if onOld {
			moved = headName(p.OldHEAD)
		}
		fmt.Fprintf(e.opts.Log, "autocoder: an earlier run was interrupted during step %s, but %s has moved since; left everything as it is (check %s) and kept the journal as %s\n",
			p.StepID, moved, strings.Join(paths, ", "), kept)
		return nil
	}
	forward := cur == p.NewRef && p.NewRef != p.OldRef && !p.Back
	p.recovering = true
	if _, err := e.moveTo(&p, forward, nil); err != nil {
		return fmt.Errorf("recover the interrupted %s of step %s: %w; the journal %s is kept", p.Kind, p.StepID, err, e.journalPath())
	}
	if len(p.kept) > 0 {
		fmt.Fprintf(e.opts.Log, "autocoder: left your changes to %s as they are\n", strings.Join(p.kept, ", "))
	}
	if forward {
		e.recoverRedo(&p)
		e.settleRedo(&p)
		fmt.Fprintf(e.opts.Log, "autocoder: an earlier run was interrupted after step %s was committed (%s); finished it\n", p.StepID, p.Kind)
	} else {
		fmt.Fprintf(e.opts.Log, "autocoder: an earlier run was interrupted during step %s (%s); restored the %d touched path(s), the index and %s to the state before it\n",
			p.StepID, p.Kind, len(p.Paths), strings.TrimPrefix(p.Ref, "refs/heads/"))
	}
	return e.clearJournal()
}

// committedOnOldHEAD reports whether HEAD, still where a plan that moves
// it found it (a first step leaving the user's branch), names another
// commit than it did: a kill before HEAD moved leaves the step's files
// written and git's locks held, and the user who removed the locks and
// committed moved on. HEAD moves before the ref, so the plan's ref has not
// moved either.
func (e *Engine) committedOnOldHEAD(p *plan, headNow string) bool {
	if p.OldHEAD == p.NewHEAD || headNow != p.OldHEAD || p.HeadFrom.IsZero() {
		return false
	}
	h, err := e.repo.ReadHEAD()
	return err == nil && h.Hash != p.HeadFrom
}

// releaseStaleLocks removes lock files that a killed autocoder took through
// its private names (gitops.ReleaseStaleLocks); any other lock stays.
func (e *Engine) releaseStaleLocks() error {
	removed, err := e.repo.ReleaseStaleLocks(e.priv)
	for _, l := range removed {
		fmt.Fprintf(e.opts.Log, "autocoder: removed %s left by an interrupted autocoder run\n", l)
	}
	return err
}

func (e *Engine) recoveryIdentity() gitops.Signature {
	_, c, err := e.identity()
	if err != nil {
		return gitops.Signature{Name: "autocoder", Email: "autocoder@localhost", When: e.opts.Now()}
	}
	return c
}
