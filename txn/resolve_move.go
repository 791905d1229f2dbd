package txn

import (
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/step"
)

// resolveMove resolves a move of a file, or of a folder (moveDir).
func (w *workspace) resolveMove(op *step.Op, f *file, rel string, r *step.OpResult) error {
	to, err := w.resolvePath(op.To)
	if err != nil {
		return err
	}
	if err := w.once(op, op.To, to); err != nil {
		return err
	}
	r.To = to
	if f.dir {
		return w.moveDir(rel, to, r)
	}
	if !f.exists || f.origLink {
		return &NotFoundError{Path: rel, Fix: "move needs an existing regular file or a folder; check the path"}
	}
	t, err := w.get(to)
	if err != nil {
		return err
	}
	if t.exists && !op.Overwrite {
		return &ExistsError{Path: to, Fix: "set overwrite to true to replace " + to + ", or move to another path"}
	}
	data, mode := f.data, f.mode
	f.exists, f.data = false, nil
	if err := w.setContent(t, data); err != nil {
		return err
	}
	t.mode = mode
	r.Message = "moved to " + to
	return nil
}

// moveDir moves every tracked file below the folder rel to the same place
// below to. Like deleteDir it refuses a folder holding files git does not
// track (the move would leave them behind, or undo could not bring them
// back), and it refuses a target that exists: merging two folders is a
// guess about which file wins.
func (w *workspace) moveDir(rel, to string, r *step.OpResult) error {
	if to == rel || strings.HasPrefix(to, rel+"/") {
		return &KindError{Path: to, Is: "inside " + rel, Fix: "a folder cannot move into itself; choose a target outside " + rel}
	}
	t, err := w.get(to)
	if err != nil {
		return err
	}
	if t.exists || t.dir {
		return &ExistsError{Path: to, Fix: "move the folder to a path that does not exist yet, or move its files one by one"}
	}
	tracked, err := w.e.trackedUnder(rel)
	if err != nil {
		return err
	}
	if len(tracked) == 0 {
		return &NotFoundError{Path: rel, Fix: "the folder holds no file git tracks; nothing to move"}
	}
	if err := w.untrackedIn(rel, tracked); err != nil {
		return err
	}
	for _, p := range tracked {
		// Both ends pass the path policy as if moved one by one.
		if _, err := w.resolvePath(p); err != nil {
			return err
		}
		dst := to + strings.TrimPrefix(p, rel)
		if _, err := w.resolvePath(dst); err != nil {
			return err
		}
		src, err := w.get(p)
		if err != nil {
			return err
		}
		d, err := w.get(dst)
		if err != nil {
			return err
		}
		data, mode := src.data, src.mode
		src.exists, src.data = false, nil
		if err := w.setContent(d, data); err != nil {
			return err
		}
		d.mode = mode
	}
	r.Message = fmt.Sprintf("moved the folder and its %d file(s) to %s", len(tracked), to)
	return nil
}
