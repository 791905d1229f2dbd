package txn

import (
	"strings"

	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/unidiff"
)

// dryRun computes a step without changing anything (--dry-run): the same
// resolve and guard as Apply, and a unified diff per changed file. overlay
// carries the files as earlier steps of the run would leave them.
func (e *Engine) dryRun(s *step.Step, overlay map[string]*file, p *dryPlan) step.Result {
	res := step.Result{Step: s, StepID: s.ID}
	fail := func(err error) step.Result { return notApplied(failed(&res, err, false)) }
	if s.Finish {
		res.Status = step.StatusRead
		return res
	}
	w, _, _, ch, err := e.resolveStep(s, overlay, &res)
	if err != nil {
		return fail(err)
	}
	// Only paths not changed by earlier planned steps are checked against
	// the user's work: the others are ours.
	var fresh []pathChange
	for _, c := range ch {
		if _, ok := overlay[c.Path]; !ok {
			fresh = append(fresh, c)
		}
	}
	ix, err := e.repo.ReadIndex()
	if err != nil {
		return fail(err)
	}
	if err := w.guard(fresh, ix); err != nil {
		return fail(err)
	}
	if err := e.refuseIgnored(ch); err != nil {
		return fail(err)
	}
	diffs := map[string]string{}
	changed := false
	for _, rel := range w.order {
		f := w.files[rel]
		if f.exists == f.origExists && string(f.data) == string(f.origData) && f.mode == f.origMode {
			continue
		}
		changed = true
		diffs[rel] = fileDiff(rel, f)
		if _, ok := p.base[rel]; !ok {
			p.base[rel] = &file{rel: rel, exists: f.origExists, data: f.origData, mode: f.origMode}
			p.order = append(p.order, rel)
		}
		overlay[rel] = &file{rel: rel, exists: f.exists, data: f.data, mode: f.mode}
	}
	for _, op := range s.Ops {
		if op.Kind == step.OpMove && op.To != "" {
			from := op.Path
			if o, ok := p.movedFrom[from]; ok {
				from = o
				delete(p.movedFrom, op.Path)
			}
			p.movedFrom[op.To] = from
		}
	}
	for i := range res.Ops {
		res.Ops[i].Diff = diffs[res.Ops[i].Path]
		if res.Ops[i].To != "" {
			res.Ops[i].Diff += diffs[res.Ops[i].To]
		}
		if res.Ops[i].Status == step.StatusApplied {
			res.Ops[i].Status = step.StatusPlanned
		}
	}
	switch {
	case changed:
		res.Status = step.StatusPlanned
	case s.WritesFiles():
		res.Status = step.StatusUnchanged
	default:
		res.Status = step.StatusRead
	}
	return res
}

// dryPlan is what a dry run has planned so far: each changed path as the run
// found it (base, in the order first changed) and where a moved file came
// from (movedFrom: its path before the run, by its path now).
type dryPlan struct {
	base      map[string]*file
	order     []string
	movedFrom map[string]string
}

// patch is the whole run's patch: each changed path from base to what
// overlay holds now; a file that a move created, whose origin is gone, in
// rename form (with its changes) instead of a deletion and a creation.
func (p *dryPlan) patch(overlay map[string]*file) string {
	renamed := map[string]string{} // origin -> new path
	for _, rel := range p.order {
		now, was := overlay[rel], p.base[rel]
		from, ok := p.movedFrom[rel]
		if !ok || now == nil || !now.exists || was.exists {
			continue
		}
		fb, fn := p.base[from], overlay[from]
		if fb == nil || !fb.exists || fn == nil || fn.exists {
			continue
		}
		if _, taken := renamed[from]; !taken {
			renamed[from] = rel
		}
	}
	var b strings.Builder
	for _, rel := range p.order {
		if _, gone := renamed[rel]; gone {
			continue // written as the rename's source
		}
		now, was := overlay[rel], p.base[rel]
		from := rel
		for o, n := range renamed {
			if n == rel {
				from, was = o, p.base[o]
			}
		}
		var oldMode, newMode uint32
		if was.exists {
			oldMode = was.mode
		}
		if now.exists {
			newMode = now.mode
		}
		b.WriteString(unidiff.File(from, rel, was.data, now.data, oldMode, newMode))
	}
	return b.String()
}

// fileDiff is one touched path's patch in git's format (unidiff.File): a
// path that did not exist before, or does not after, has mode 0.
func fileDiff(rel string, f *file) string {
	var oldMode, newMode uint32
	if f.origExists {
		oldMode = f.origMode
	}
	if f.exists {
		newMode = f.mode
	}
	return unidiff.File(rel, rel, f.origData, f.data, oldMode, newMode)
}
