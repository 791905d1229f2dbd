package gitops

// autocoder's own folder under the git directory, and the lock files it
// takes through private names. gitops decides where the folder is and how
// a lock's private name is spelt; what else the engine keeps in the folder
// (its journal, its redo stacks) is the engine's, addressed through Path.

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/autocoder/autocoder/step"
)

// Private is autocoder's own folder in this worktree's git directory
// (<gitdir>/autocoder): per worktree, like HEAD and the index, so that two
// worktrees of one repository each keep their own journal.
type Private struct {
	r   *Repo
	dir string
}

// Private creates (if needed) and returns autocoder's own folder.
func (r *Repo) Private() (*Private, error) {
	p := &Private{r: r, dir: filepath.Join(r.GitDir, "autocoder")}
	if err := os.MkdirAll(p.dir, 0o777); err != nil {
		return nil, fmt.Errorf("create %s: %w", p.dir, err)
	}
	return p, nil
}

// Path is the file name in the private folder, a slash-separated path
// relative to it.
func (p *Private) Path(name string) string {
	return filepath.Join(p.dir, filepath.FromSlash(name))
}

// InOthers is name (as in Path) in the other worktrees' own folders: the
// main worktree's and every linked one's, this one's left out. Things
// that belong to a branch rather than to a worktree (a redo stack an older
// autocoder kept in the folder of whichever worktree moved the branch) are
// found there.
//
// A name is given only where every folder from the worktree's own folder
// down to the file is a folder, not a symlink (nor missing: then there is
// no file to find): whoever controls the repository's files may plant one
// under .git/worktrees, and the engine removes and writes what it gets.
func (p *Private) InOthers(name string) []string {
	dirs := []string{filepath.Join(p.r.CommonDir, "autocoder")}
	wts, _ := os.ReadDir(filepath.Join(p.r.CommonDir, "worktrees"))
	for _, w := range wts {
		if w.IsDir() { // the type ReadDir read: a symlink is not one
			dirs = append(dirs, filepath.Join(p.r.CommonDir, "worktrees", w.Name(), "autocoder"))
		}
	}
	parts := strings.Split(name, "/")
	var out []string
	for _, d := range dirs {
		if d == p.dir || !realDirs(d, parts[:len(parts)-1]) {
			continue
		}
		out = append(out, filepath.Join(d, filepath.FromSlash(name)))
	}
	return out
}

// Everywhere is name (as in Path) in every worktree's own folder, this
// one's first, as InOthers gives them.
func (p *Private) Everywhere(name string) []string {
	return append([]string{p.Path(name)}, p.InOthers(name)...)
}

// Common is name (as in Path) in the main worktree's own folder, which
// every worktree reaches: what belongs to the repository rather than to
// one worktree.
func (p *Private) Common(name string) string {
	return filepath.Join(p.r.CommonDir, "autocoder", filepath.FromSlash(name))
}

// realDirs reports whether dir, and each folder of sub inside it in turn,
// is a folder and not a symlink.
func realDirs(dir string, sub []string) bool {
	for i := 0; ; i++ {
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			return false
		}
		if i == len(sub) {
			return true
		}
		dir = filepath.Join(dir, sub[i])
	}
}

// OpenOwn opens name, a file of autocoder's own folder (see Path), with
// flag and os.O_CREATE, never through a symlink nor a hard link: a symlink
// standing at that name, or a file with another name too (a hard link to a
// file of the user's, kept by an archive of the repository that holds
// .git), would have the user's file overwritten or emptied; neither is a
// file autocoder made. That name is removed and a file made in its place;
// the user's file is left as it is.
func OpenOwn(name string, flag int) (*os.File, error) {
	if fi, err := os.Lstat(name); err == nil && (fi.Mode()&os.ModeSymlink != 0 || fi.Mode().IsRegular() && !oneLink(name, fi)) {
		if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return os.OpenFile(name, flag|os.O_CREATE, 0o666)
}

// ownPrefix starts the private name of every lock file taken through
// lockVia; the rest is the escaped name of what it locks.
const ownPrefix = "own-"

// own is the private name of the lock on target, a name relative to the
// git directories as git spells it ("index", "HEAD", "packed-refs",
// "refs/heads/x"). It is one file name, so ReleaseStaleLocks can read the
// target back from it.
func (p *Private) own(target string) string {
	return filepath.Join(p.dir, ownPrefix+url.PathEscape(target))
}

// lockTarget is where the file target (as in own) lives; false for a
// target autocoder never locks.
func (r *Repo) lockTarget(target string) (string, bool) {
	switch {
	case target == "index":
		return filepath.Join(r.GitDir, "index"), true
	case target == "packed-refs":
		return filepath.Join(r.CommonDir, "packed-refs"), true
	case target == "HEAD" || strings.HasPrefix(target, "refs/"):
		return r.refFile(target), true
	}
	return "", false
}

// lockVia takes the lock on target (see LockVia) through its private name.
func (r *Repo) lockVia(p *Private, target string) (*LockFile, error) {
	file, ok := r.lockTarget(target)
	if !ok {
		return nil, fmt.Errorf("lock %s: not a file autocoder writes", target)
	}
	own := p.own(target)
	if _, err := os.Lstat(own); errors.Is(err, os.ErrNotExist) {
		r.spares.take(own) // LockVia then rewrites it rather than make it
	}
	l, err := LockVia(file, own)
	if l != nil {
		l.spares = r.spares
	}
	return l, err
}

// ReleaseStaleLocks removes the lock files that a killed autocoder took
// through its private names (a lock file that is provably the same file as
// our private one: see LockVia), and the private names themselves. Any
// other lock, git's or another tool's, stays. It returns the lock files it
// removed.
func (r *Repo) ReleaseStaleLocks(p *Private) ([]string, error) {
	ents, err := os.ReadDir(p.dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, ent := range ents {
		name, ok := strings.CutPrefix(ent.Name(), ownPrefix)
		if !ok {
			continue
		}
		own := filepath.Join(p.dir, ent.Name())
		target, err := url.PathUnescape(name)
		file, known := r.lockTarget(target)
		if err != nil || !known {
			// Not a name this version spells: which lock it proves is
			// unknown, so removing the private file is all that is safe.
			os.Remove(own)
			continue
		}
		gone, err := ReleaseStale(file, own)
		if err != nil {
			return removed, err
		}
		if gone {
			removed = append(removed, file+".lock")
		}
	}
	return removed, nil
}

// errLockHeld is what lockFileNB returns when another process holds the
// lock.
var errLockHeld = errors.New("held by another process")

// LockHeldError is the private folder's lock held by another process.
type LockHeldError struct {
	Holder string // what the holder wrote into the lock: pid, host, command, since
}

func (e *LockHeldError) Error() string {
	return "the autocoder lock is held (" + e.Holder + ")"
}

// Class is refused: one autocoder process per repository at a time.
func (e *LockHeldError) Class() step.Class { return step.ClassRefused }

// Hint says what to do.
func (e *LockHeldError) Hint() string {
	return "wait for it to finish and run the command again"
}

// ProcessLock is the exclusive lock on the private folder that one
// autocoder process holds at a time. The operating system releases it when
// the process dies (flock on unix, LockFileEx on Windows), so a killed
// autocoder never blocks the next one.
type ProcessLock struct{ f *os.File }

// Lock takes the private folder's lock without waiting, and writes who
// holds it (pid, host, command line, time) into the lock file for the
// message another process shows. It returns *LockHeldError when another
// process holds it.
func (p *Private) Lock() (*ProcessLock, error) {
	return p.lockNamed("lock", "the autocoder lock")
}

// lockNamed is Lock on the file name of the private folder; what names
// the lock in errors.
func (p *Private) lockNamed(name, what string) (*ProcessLock, error) {
	path := filepath.Join(p.dir, name)
	f, err := OpenOwn(path, os.O_RDWR)
	if errors.Is(err, os.ErrNotExist) {
		// The folder went since Private made it: the user cleared
		// .git/autocoder between two calls of a session. It is made
		// again, as a new process would make it.
		if err = os.MkdirAll(p.dir, 0o777); err == nil {
			f, err = OpenOwn(path, os.O_RDWR)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("take %s: %w", what, err)
	}
	if err := lockFileNB(f); err != nil {
		f.Close()
		if !errors.Is(err, errLockHeld) {
			return nil, fmt.Errorf("take %s: %w", what, err)
		}
		// Another handle holds the lock; on Windows the locked range
		// cannot be read through ours, so the holder is read by name.
		holder, _ := os.ReadFile(path)
		h := strings.TrimSpace(string(holder))
		if h == "" {
			h = "holder unknown"
		}
		return nil, &LockHeldError{Holder: h}
	}
	host, _ := os.Hostname()
	// Empty as Unlock leaves it, unless a killed holder left its note:
	// truncating an empty file is not free on ext4 (see emptied), and a
	// session takes this lock at every call.
	emptied(f)
	f.WriteAt([]byte(fmt.Sprintf("pid %d on %s, %s, since %s\n", os.Getpid(), host,
		strings.Join(os.Args, " "), time.Now().Format(time.RFC3339))), 0)
	return &ProcessLock{f: f}, nil
}

// Unlock releases the lock and empties the holder note.
func (l *ProcessLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	l.f.Truncate(0)
	err := l.f.Close() // closing releases the lock
	l.f = nil
	return err
}
