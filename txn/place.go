package txn

// Worktree placement: writing, deleting and restoring the files of a plan
// (a temporary file renamed over the path), and telling whether a file is
// still ours to write.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
)

// tmpName is where the plan writes the new content of its i-th path before
// the rename: beside it (a rename does not cross file systems), named with
// the plan's random token, which the journal holds before the first write.
// A name nobody else can know, created with O_EXCL as git's tmp_obj_XXXXXX,
// is one autocoder made itself: recovery removes exactly those names, and no
// file of the user's is ever taken for one.
func (p *plan) tmpName(root, rel string) string {
	if p.Tmp == "" {
		p.Tmp = newToken()
	}
	i := 0
	for j, c := range p.Paths {
		if c.Path == rel {
			i = j
			break
		}
	}
	full := filepath.Join(root, filepath.FromSlash(rel))
	return filepath.Join(filepath.Dir(full), fmt.Sprintf(".autocoder-tmp-%s-%d", p.Tmp, i))
}

// newToken is a plan's random token for its temporary names.
func newToken() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ObstacleError is something autocoder did not create standing where a plan
// must put or remove a file: it is never removed to make room.
type ObstacleError struct{ Path, What string }

func (e *ObstacleError) Error() string {
	return fmt.Sprintf("%s is in the way: %s, which autocoder did not create and does not remove", e.Path, e.What)
}

// Hint says what to do.
func (e *ObstacleError) Hint() string {
	return "move " + e.Path + " away if it is not needed; the next autocoder command finishes the step's rollback either way and leaves it as it is"
}

// Class is refused: what autocoder did not create is never removed.
func (e *ObstacleError) Class() step.Class { return step.ClassRefused }

// beforeReplace is called with the temporary file that is about to be
// renamed over a work tree file: the tests look at it there.
var beforeReplace = func(tmp string) {}

// placeFile makes the worktree file rel hold t: its content and mode, or
// nothing. Content goes to a temporary file that is renamed over the path,
// so no reader ever sees half a file.
func (e *Engine) placeFile(p *plan, rel string, t entry, forward bool) error {
	full := e.repo.Abs(rel)
	if !t.Exists {
		if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
			// The plan's file is gone and a folder is in its place: not ours.
			return &ObstacleError{Path: rel, What: "a folder"}
		}
		if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete %s: %w", rel, err)
		}
		if forward {
			// As git does; going back, only the plan's own NewDirs go.
			e.pruneDirs(path.Dir(rel))
		}
		return nil
	}
	// The step's own content, an empty one too: its blob may not be on
	// disk yet (gitops.WriteBehind).
	data, known := []byte(nil), false
	if forward && p.content != nil {
		data, known = p.content[rel]
	}
	if !known {
		var err error
		if data, err = e.repo.ReadBlob(t.Hash); err != nil {
			return err
		}
		if t.Mode != gitops.ModeSymlink {
			data = e.toWorktree(rel, data) // as git checkout writes it
		}
	}
	// One look at the path: a file there has its folder (no MkdirAll) and
	// keeps its permission bits (below).
	fi, err := os.Lstat(full)
	if err != nil {
		if err := os.MkdirAll(filepath.Dir(full), 0o777); err != nil {
			return fmt.Errorf("create folder of %s: %w", rel, err)
		}
		fi = nil
	} else if fi.IsDir() {
		// The plan turns an (empty by now) folder into a file; a folder
		// that still holds something is not the plan's to remove.
		if err := os.Remove(full); err != nil {
			return &ObstacleError{Path: rel, What: "a folder that is not empty"}
		}
		fi = nil
	}
	if t.Mode == gitops.ModeSymlink {
		// Made beside it and renamed over it, as a file is: a failure
		// leaves the path as it was (the rollback relies on it).
		tmp := p.tmpName(e.repo.Root, rel)
		if err := os.Symlink(string(data), tmp); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return &ObstacleError{Path: e.relOf(tmp), What: "a file with autocoder's temporary name for this step"}
			}
			return fmt.Errorf("restore link %s: %w", rel, err)
		}
		if err := os.Rename(tmp, full); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("restore link %s: %w", rel, err)
		}
		return nil
	}
	perm := os.FileMode(0o666)
	if t.Mode == gitops.ModeExec {
		perm = 0o777
	}
	// A file that is there keeps its permission bits (a 0600 file stays
	// 0600, as git keeps them); only the executable bit follows git's mode.
	keep := false
	if fi != nil && fi.Mode().IsRegular() {
		keep, perm = true, fi.Mode().Perm()
		if t.Mode == gitops.ModeExec {
			perm |= (perm & 0o444) >> 2
		} else {
			perm &^= 0o111
		}
	}
	tmp := p.tmpName(e.repo.Root, rel)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if errors.Is(err, fs.ErrExist) {
		return &ObstacleError{Path: e.relOf(tmp), What: "a file with autocoder's temporary name for this step"}
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	if keep {
		f.Chmod(perm) // OpenFile's mode passed through the umask
		// Renamed over the file below: written into blocks it has.
		gitops.Reserve(f, 0, int64(len(data)))
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
	if keep {
		e.spares.Keep(full) // freed between calls, not during this one
		beforeReplace(tmp)
	}
	if err := gitops.Rename(tmp, full); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", rel, err)
	}
	return nil
}

// isEither reports whether a path's worktree content is the plan's old or
// new state (or the file is absent where one of them has none): whether it
// is still ours to write.
func (e *Engine) isEither(c pathChange) bool {
	full := e.repo.Abs(c.Path)
	fi, err := os.Lstat(full)
	if err != nil {
		return !c.Old.Exists || !c.New.Exists
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0: // never follow it: the link itself is the content
		target, err := os.Readlink(full)
		if err != nil {
			return false
		}
		h := gitops.BlobHash([]byte(target))
		return (c.Old.Exists && c.Old.Hash == h) || (c.New.Exists && c.New.Hash == h)
	case fi.IsDir():
		return false
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return false
	}
	return (c.Old.Exists && e.matchesBlob(c.Path, data, c.Old.Hash, c.Old.Hash)) ||
		(c.New.Exists && e.matchesBlob(c.Path, data, c.New.Hash, c.Old.Hash))
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
		if os.Remove(e.repo.Abs(dir)) != nil {
			return
		}
		dir = path.Dir(dir)
	}
}

// relOf is an absolute path inside the worktree as a repository-relative one.
func (e *Engine) relOf(full string) string {
	if r, ok := e.repo.Rel(full); ok {
		return r
	}
	return full
}
