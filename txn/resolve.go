package txn

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/autocoder/autocoder/reads"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/suggest"
)

// resolve runs the checks and computes every op in memory. It changes
// nothing on disk. Ops results go into res.
func (w *workspace) resolve(s *step.Step, res *step.Result) error {
	for i := range s.Checks {
		c := &s.Checks[i]
		var err error
		switch c.Kind {
		case step.CheckFilesExist:
			err = filesExist(w.e.Policy, c.Paths)
		case step.CheckCwdMatch:
			err = cwdMatch(w.e.repo.Root, c.Want)
		default:
			err = &step.Error{C: step.ClassUsage, Msg: fmt.Sprintf("unknown check %q", c.Kind),
				Fix: "the checks are " + string(step.CheckFilesExist) + " and " + string(step.CheckCwdMatch)}
		}
		if err != nil {
			return err
		}
	}
	for i := range s.Ops {
		op := &s.Ops[i]
		r := step.OpResult{Kind: op.Kind, Path: op.Path, To: op.To, Status: step.StatusApplied}
		err := w.resolveOp(op, &r)
		if err != nil {
			w.e.namesLookAlikes(err)
			r.Status, r.Error, r.Hint = step.StatusFailed, err.Error(), step.HintOf(err)
			res.Ops = append(res.Ops, r)
			return &OpError{Op: op, Err: err}
		}
		res.Ops = append(res.Ops, r)
	}
	return nil
}

// resolveOp resolves one op in memory: echo and status answer at once, a
// read op reads, and a write op passes the path policy and its expected
// hash here, once for all kinds, then goes to the resolver of its kind
// (resolve_<kind>.go).
func (w *workspace) resolveOp(op *step.Op, r *step.OpResult) error {
	switch op.Kind {
	case step.OpEcho:
		r.Status, r.Output = step.StatusRead, string(op.Content)
		return nil
	case step.OpStatus:
		r.Status = step.StatusRead
		return w.status(r)
	}
	if !op.Kind.Writes() {
		rel, err := w.e.Policy.ResolveRead(op.Path)
		if err != nil {
			return err
		}
		r.Path = rel
		return w.read(op, rel, r)
	}
	rel, err := w.resolvePath(op.Path)
	if err != nil {
		return err
	}
	r.Path = rel
	if err := w.once(op, op.Path, rel); err != nil {
		return err
	}
	f, err := w.get(rel)
	if err != nil {
		return err
	}
	if op.ExpectedSHA256 != "" {
		if err := checkSHA256(rel, f.data, f.exists, op.ExpectedSHA256); err != nil {
			return err
		}
	}
	if resolve, ok := resolvers[op.Kind]; ok {
		return resolve(w, op, f, rel, r)
	}
	return &step.Error{C: step.ClassUsage, Msg: fmt.Sprintf("unknown operation %q", op.Kind),
		Fix: "the operations are write, append, replace, delete, move, mkdir, rmdir, chmod, read, list, search and diff"}
}

// resolvers are the resolvers of the write ops, by kind: each gets the op,
// its file as the step leaves it so far, and the file's path.
var resolvers = map[step.OpKind]func(w *workspace, op *step.Op, f *file, rel string, r *step.OpResult) error{
	step.OpWrite:   (*workspace).resolveWrite,
	step.OpAppend:  (*workspace).resolveAppend,
	step.OpReplace: (*workspace).resolveReplace,
	step.OpDelete:  (*workspace).resolveDelete,
	step.OpRmdir:   (*workspace).resolveRmdir,
	step.OpMkdir:   (*workspace).resolveMkdir,
	step.OpChmod:   (*workspace).resolveChmod,
	step.OpMove:    (*workspace).resolveMove,
}

// namesLookAlikes puts in front of the hint of a path that does not exist
// the tracked files it probably meant: models often guess where a file
// lies (main.go for cmd/tool/main.go) or how its name is spelt.
func (e *Engine) namesLookAlikes(err error) {
	var fix *string
	var rel string
	var nf *NotFoundError
	var rnf *reads.NotFoundError
	switch {
	case errors.As(err, &nf):
		rel, fix = nf.Path, &nf.Fix
	case errors.As(err, &rnf):
		rel, fix = rnf.Path, &rnf.Fix
	default:
		return
	}
	tracked, terr := e.trackedUnder("")
	if terr != nil || rel == "" {
		return
	}
	// Names compare without their extension, which must be the same: to
	// Closest, two names that share only ".txt" are alike.
	ext := path.Ext(rel)
	stem := func(p string) string { return strings.TrimSuffix(path.Base(p), path.Ext(p)) }
	var stems []string
	seen := map[string]bool{}
	for _, p := range tracked {
		if b := stem(p); strings.EqualFold(path.Ext(p), ext) && !seen[b] {
			seen[b] = true
			stems = append(stems, b)
		}
	}
	meant := suggest.Closest(stem(rel), stems)
	if meant == "" {
		return
	}
	var alike []string
	for _, p := range tracked {
		if p != rel && strings.EqualFold(stem(p), meant) && strings.EqualFold(path.Ext(p), ext) {
			alike = append(alike, p)
		}
	}
	if len(alike) == 0 {
		return
	}
	sort.SliceStable(alike, func(i, j int) bool { return len(alike[i]) < len(alike[j]) })
	if len(alike) > 3 {
		alike = alike[:3]
	}
	s := alike[len(alike)-1]
	if len(alike) > 1 {
		s = strings.Join(alike[:len(alike)-1], ", ") + " or " + s
	}
	*fix = "did you mean " + s + "? " + *fix
}
