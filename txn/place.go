package txn

// Worktree placement: writing, deleting and restoring the files of a plan
// (a temporary file renamed over the path), and telling whether a file is
// still ours to write.

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/autocoder/autocoder/gitops"
)

// tmpName is where a file's new content is written before the rename; a
// fixed name per path lets recovery remove what a killed run left.
func tmpName(full string) string {
	return filepath.Join(filepath.Dir(full), ".autocoder-tmp-"+filepath.Base(full))
}

// placeFile makes the worktree file rel hold t: its content and mode, or
// nothing. Content goes to a temporary file that is renamed over the path,
// so no reader ever sees half a file.
func (e *Engine) placeFile(p *plan, rel string, t entry, forward bool) error {
	full := e.Repo.Abs(rel)
	if !t.Exists {
		if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete %s: %w", rel, err)
		}
		if forward {
			// As git does; going back, only the plan's own NewDirs go.
			e.pruneDirs(path.Dir(rel))
		}
		return nil
	}
	var data []byte
	if forward && p.content != nil {
		if c, ok := p.content[rel]; ok {
			data = c
		}
	}
	if data == nil {
		var err error
		if data, err = e.Repo.ReadBlob(t.Hash); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o777); err != nil {
		return fmt.Errorf("create folder of %s: %w", rel, err)
	}
	if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
		// The plan turns an (empty by now) folder into a file.
		if err := os.Remove(full); err != nil {
			return fmt.Errorf("replace folder %s with a file: %w", rel, err)
		}
	}
	if t.Mode == gitops.ModeSymlink {
		os.Remove(full)
		if err := os.Symlink(string(data), full); err != nil {
			return fmt.Errorf("restore link %s: %w", rel, err)
		}
		return nil
	}
	perm := os.FileMode(0o666)
	if t.Mode == gitops.ModeExec {
		perm = 0o777
	}
	tmp := tmpName(full)
	os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", rel, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", rel, err)
	}
	if err := os.Rename(tmp, full); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", rel, err)
	}
	return nil
}

// isEither reports whether a path's worktree content is the plan's old or
// new state (or the file is absent where one of them has none): whether it
// is still ours to write.
func (e *Engine) isEither(c pathChange) bool {
	full := e.Repo.Abs(c.Path)
	fi, err := os.Lstat(full)
	if err != nil {
		return !c.Old.Exists || !c.New.Exists
	}
	var data []byte
	switch {
	case fi.Mode()&os.ModeSymlink != 0: // never follow it: the link itself is the content
		target, err := os.Readlink(full)
		if err != nil {
			return false
		}
		data = []byte(target)
	case fi.IsDir():
		return false
	default:
		if data, err = os.ReadFile(full); err != nil {
			return false
		}
	}
	h := gitops.BlobHash(data)
	return (c.Old.Exists && c.Old.Hash == h) || (c.New.Exists && c.New.Hash == h)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pruneDirs removes folders left empty by a deletion, up to the root, as
// git does.
func (e *Engine) pruneDirs(dir string) {
	for dir != "." && dir != "/" && dir != "" {
		if os.Remove(e.Repo.Abs(dir)) != nil {
			return
		}
		dir = path.Dir(dir)
	}
}
