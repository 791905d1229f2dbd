package txn

import (
	"io/fs"
	"path/filepath"

	"github.com/autocoder/autocoder/gitops/gitpath"
)

// walkDir calls fn for every entry below root, never following symlinks
// and never entering a .git folder in any spelling (a nested repository's
// data is its own).
func walkDir(root string, fn func(string, fs.DirEntry)) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && gitpath.IsDotGit(d.Name()) {
			return filepath.SkipDir
		}
		if p != root {
			fn(p, d)
		}
		return nil
	})
}
