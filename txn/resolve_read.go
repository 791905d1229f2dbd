package txn

import (
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/reads"
	"github.com/autocoder/autocoder/step"
)

// status reports the branch and what git status calls changed. The step's
// own writes are not on disk yet, so this is the repository as the step
// found it.
func (w *workspace) status(r *step.OpResult) error {
	head, err := w.e.repo.ReadHEAD()
	if err != nil {
		return err
	}
	dirty, err := w.e.repo.Dirty()
	if err != nil {
		return err
	}
	var b strings.Builder
	if head.Branch != "" {
		fmt.Fprintf(&b, "on branch %s\n", strings.TrimPrefix(head.Branch, "refs/heads/"))
	} else {
		b.WriteString("HEAD detached\n")
	}
	if len(dirty) == 0 {
		b.WriteString("nothing to commit, working tree clean\n")
	}
	for _, p := range dirty {
		fmt.Fprintf(&b, "changed or untracked: %s\n", p)
	}
	r.Output = b.String()
	return nil
}

// read runs a read op; it sees the step's own earlier writes.
func (w *workspace) read(op *step.Op, rel string, r *step.OpResult) error {
	r.Status = step.StatusRead
	if f, ok := w.files[rel]; ok && op.Kind == step.OpRead && op.Read == nil {
		if !f.exists {
			return &NotFoundError{Path: rel, Fix: "check the path (list the tree first)"}
		}
		r.Output = string(f.data)
		return nil
	}
	o := *op
	o.Path = rel
	if op.Kind == step.OpDiff && op.To != "" {
		to, err := w.e.Policy.ResolveRead(op.To)
		if err != nil {
			return err
		}
		o.To = to
	}
	fsys, err := w.e.Policy.FS()
	if err != nil {
		return err
	}
	out, err := reads.Run(fsys, o, w.e.opts.MaxFileBytes)
	if err != nil {
		return err
	}
	r.Output = out
	return nil
}
