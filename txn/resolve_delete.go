package txn

import (
	"bytes"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/autocoder/autocoder/step"
)

// resolveDelete resolves a delete of a file, or of a folder (op.Recursive).
func (w *workspace) resolveDelete(op *step.Op, f *file, rel string, r *step.OpResult) error {
	if f.dir {
		if !op.Recursive {
			return &KindError{Path: rel, Is: "a folder", Fix: "delete a folder with recursive=true (fs.rm) or delete_directory"}
		}
		return w.deleteDir(rel, r)
	}
	if !f.exists {
		if op.Force {
			r.Status, r.Message = step.StatusUnchanged, "already absent"
			return nil
		}
		return &NotFoundError{Path: rel, Fix: "nothing to delete; check the path"}
	}
	if op.HasContent && !sameText(f.data, op.Content) {
		return &DeletedContentError{Path: rel}
	}
	f.exists, f.data = false, nil
	r.Message = "deleted"
	return nil
}

// resolveRmdir resolves the delete of a folder.
func (w *workspace) resolveRmdir(op *step.Op, f *file, rel string, r *step.OpResult) error {
	if !f.dir {
		if f.exists {
			return &KindError{Path: rel, Is: "a file, not a folder", Fix: "delete a file with delete_file"}
		}
		return &NotFoundError{Path: rel, Fix: "no such folder; check the path"}
	}
	return w.deleteDir(rel, r)
}

// deleteDir deletes the tracked files below rel; a folder that holds files
// git does not track is refused, since undo could not bring them back.
func (w *workspace) deleteDir(rel string, r *step.OpResult) error {
	tracked, err := w.e.trackedUnder(rel)
	if err != nil {
		return err
	}
	if err := w.untrackedIn(rel, tracked); err != nil {
		return err
	}
	for _, p := range tracked {
		// Each file passes the path policy as if deleted on its own: a
		// denied file or a submodule inside the folder refuses the op.
		if _, err := w.resolvePath(p); err != nil {
			return err
		}
		f, err := w.get(p)
		if err != nil {
			return err
		}
		f.exists, f.data = false, nil
	}
	r.Message = fmt.Sprintf("deleted %d file(s)", len(tracked))
	return nil
}

// untrackedIn refuses a folder that holds files git does not track: an op
// on the whole folder would lose them or leave them behind, and undo could
// not bring them back.
func (w *workspace) untrackedIn(rel string, tracked []string) error {
	var untracked []string
	isTracked := map[string]bool{}
	for _, p := range tracked {
		isTracked[p] = true
	}
	root := w.e.repo.Abs(rel)
	walkDir(root, func(p string, d fs.DirEntry) {
		if d.IsDir() {
			return
		}
		if rp, ok := w.e.repo.Rel(p); ok && !isTracked[rp] {
			untracked = append(untracked, rp)
		}
	})
	if len(untracked) > 0 {
		sort.Strings(untracked)
		if len(untracked) > 5 {
			untracked = append(untracked[:5], "…")
		}
		return &DirtyError{Path: rel, Why: "the folder holds files git does not track (" + strings.Join(untracked, ", ") + "); undo could not bring them back", Untracked: "folder"}
	}
	return nil
}

// sameText reports whether two texts are equal once "\r\n" is read as "\n".
func sameText(a, b []byte) bool {
	crlf := []byte("\r\n")
	return bytes.Equal(bytes.ReplaceAll(a, crlf, []byte("\n")), bytes.ReplaceAll(b, crlf, []byte("\n")))
}
