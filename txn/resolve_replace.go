package txn

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/autocoder/autocoder/matcher"
	"github.com/autocoder/autocoder/step"
)

// resolveReplace resolves a replace: its edits, given to the matcher.
func (w *workspace) resolveReplace(op *step.Op, f *file, rel string, r *step.OpResult) error {
	if !f.exists {
		return &NotFoundError{Path: rel, Fix: "check the path (list the tree), or create the file with its whole content"}
	}
	if f.origLink {
		return w.setContent(f, nil) // refuses with the symlink message
	}
	// An edit whose old and new texts are equal changes nothing: it
	// is reported as a no-op and the others go on (DIALECTS.md); the
	// matcher, which would refuse it, never sees it.
	var edits []matcher.Edit
	var at []int // op.Edits index of each edit given to the matcher
	for i, ed := range op.Edits {
		if ed.Old == ed.New && ed.Old != "" {
			continue
		}
		edits = append(edits, matcher.Edit{Old: ed.Old, New: ed.New, Identifier: ed.Identifier,
			Anchors: ed.Anchors, Follows: ed.Follows, AtEnd: ed.AtEnd})
		at = append(at, i)
	}
	out, rs := f.data, []matcher.Result(nil)
	if len(edits) > 0 {
		var err error
		if out, rs, err = matcher.ReplaceAll(f.data, edits); err != nil {
			var ee *matcher.EditError
			if errors.As(err, &ee) {
				ee.Index = at[ee.Index] // the model's numbering
			}
			return err
		}
	}
	already, noop := 0, 0
	r.Replaces = make([]step.ReplaceResult, len(op.Edits))
	for i := range op.Edits {
		r.Replaces[i] = step.ReplaceResult{Index: i, NoOp: true}
	}
	noop = len(op.Edits) - len(rs)
	for j, m := range rs {
		r.Replaces[at[j]] = step.ReplaceResult{Index: at[j], Tier: m.Tier.String(), Matches: 1 + len(m.AppliedAt),
			AlreadyApplied: m.AlreadyApplied, StartLine: m.StartLine, EndLine: m.EndLine, AppliedAt: m.AppliedAt}
		if m.AlreadyApplied {
			already++
		}
	}
	switch {
	case noop == len(op.Edits):
		r.Status = step.StatusUnchanged
		r.Message = "no-op: the old and new texts are equal, so nothing changed; send only edits that change something"
	case already == len(rs) && noop == 0:
		r.Message = "already applied; nothing changed"
	case already == 0 && noop == 0:
		r.Message = "replaced"
	default:
		var parts []string
		if already > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d edits were already applied", already, len(op.Edits)))
		}
		if noop > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d edits were no-ops (old and new texts equal) and changed nothing", noop, len(op.Edits)))
		}
		r.Message = "replaced; " + strings.Join(parts, "; ")
	}
	for _, rr := range r.Replaces {
		if len(rr.AppliedAt) > 0 {
			r.Message += fmt.Sprintf("; edit %d: the old text also occurs at line(s) %s, where the edit is already applied, so line %d was the place",
				rr.Index+1, joinLines(rr.AppliedAt), rr.StartLine)
		}
	}
	return w.setContent(f, out)
}

// joinLines writes line numbers as "3, 7, 12".
func joinLines(ls []int) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = strconv.Itoa(l)
	}
	return strings.Join(s, ", ")
}
