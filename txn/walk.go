package txn

import (
	"github.com/autocoder/autocoder/checks"
	"io/fs"
	"path/filepath"
)

// walkDir calls fn for every entry below root, never following symlinks
// and never entering a .git folder (a nested repository's data is its own).
func walkDir(root string, fn func(string, fs.DirEntry)) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && checks.IsDotGit(d.Name()) {
			return filepath.SkipDir
		}
		if p != root {
			fn(p, d)
		}
		return nil
	})
}
