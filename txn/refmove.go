package txn

// Ref moves: the branch ref's and HEAD's locks, taken before the first
// write of a move and verified under the lock.

import (
	"strings"

	"github.com/autocoder/autocoder/gitops"
)

// lockRef takes the branch ref's lock for a move, verifying under the lock
// that the ref is where the plan says it comes from (or already where it
// goes: then there is nothing to do and no lock).
func (e *Engine) lockRef(p *plan, forward bool) (*gitops.RefTxn, error) {
	want, other := p.NewRef, p.OldRef
	if !forward {
		want, other = p.OldRef, p.NewRef
	}
	cur, _, err := e.repo.ResolveRef(p.Ref)
	if err != nil {
		return nil, err
	}
	if cur == want {
		return nil, nil
	}
	if cur != other {
		return nil, &gitops.RefChangedError{Ref: p.Ref, Want: other, Got: cur}
	}
	msg := p.Message
	headRaw := p.NewHEAD
	if !forward {
		msg = "autocoder: roll back " + p.Kind + " of " + p.StepID
		headRaw = p.OldHEAD
	}
	return e.repo.BeginRefUpdate(gitops.RefUpdate{
		Name: p.Ref, Old: cur, New: want, Message: msg, Who: p.who,
		AlsoLogHEAD: strings.TrimSpace(headRaw) == "ref: "+p.Ref,
	}, e.priv)
}

// lockHEAD takes HEAD.lock for a plan that changes HEAD, before the first
// write, with the new content already in it.
func (e *Engine) lockHEAD(p *plan, forward bool) (*gitops.HEADTxn, error) {
	if p.OldHEAD == p.NewHEAD {
		return nil, nil
	}
	want, from := p.NewHEAD, p.OldHEAD
	fromHash, toHash := p.HeadFrom, p.HeadTo
	msg := "checkout: moving from " + headName(from) + " to " + headName(want)
	if !forward {
		want, from = p.OldHEAD, p.NewHEAD
		fromHash, toHash = p.HeadTo, p.HeadFrom
		msg = "autocoder: roll back " + p.Kind + " of " + p.StepID + ": checkout: moving from " + headName(from) + " to " + headName(want)
	}
	cur, err := e.repo.RawHEAD()
	if err != nil {
		return nil, err
	}
	if cur == want {
		return nil, nil
	}
	return e.repo.BeginSetHEAD(want, e.priv, fromHash, toHash, p.who, msg)
}

func headName(raw string) string {
	s := strings.TrimSpace(raw)
	if t, ok := strings.CutPrefix(s, "ref: "); ok {
		return strings.TrimPrefix(t, "refs/heads/")
	}
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
