package txn

import "github.com/autocoder/autocoder/step"

// resolveMkdir resolves a new folder.
func (w *workspace) resolveMkdir(op *step.Op, f *file, rel string, r *step.OpResult) error {
	if f.dir {
		r.Status, r.Message = step.StatusUnchanged, "the folder already exists"
		return nil
	}
	if f.exists {
		return &ConflictPathError{Path: rel + "/", File: rel}
	}
	if err := w.parentsAreFolders(rel); err != nil {
		return err
	}
	w.dirs = append(w.dirs, rel)
	r.Message = "created the folder; git does not record empty folders, so it enters a commit with its first file"
	return nil
}
