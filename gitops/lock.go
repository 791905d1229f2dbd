package gitops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// LockedError reports a lock file that someone else holds: a running git
// command, another tool, or one that crashed. autocoder never removes it.
type LockedError struct {
	Path   string        // the lock file
	Waited time.Duration // how long we waited for it to go away
}

func (e *LockedError) Error() string {
	if e.Waited > 0 {
		return fmt.Sprintf("%s is locked: %s still exists after waiting %s", filepath.Base(e.Target()), e.Path, e.Waited.Round(100*time.Millisecond))
	}
	return fmt.Sprintf("%s is locked: %s exists", filepath.Base(e.Target()), e.Path)
}

// Target is the file the lock protects.
func (e *LockedError) Target() string { return e.Path[:len(e.Path)-len(".lock")] }

// Hint says what to do about a held lock.
func (e *LockedError) Hint() string {
	return fmt.Sprintf("another git process seems to be running in this repository; wait for it and try again. If none is running, a crashed git left the lock behind: remove %s yourself", e.Path)
}

// LockFile is git's lock-file protocol: create "<path>.lock" exclusively,
// write the new content into it, then rename it over path (Commit) or remove
// it (Rollback). Readers never see a torn file, and a lock held by git makes
// us refuse rather than wait or steal it.
type LockFile struct {
	path string
	lock string // path + ".lock"
	own  string // our private name for the same file, or ""
	f    *os.File
	done bool
	// off is how much has been written; reserved, how much of the file
	// has its blocks (see Reserve): a spare's, made between calls.
	off, reserved int64
	// spares keeps the file that Commit replaces (see Spares.Keep), or nil.
	spares *Spares
}

// LockWait is how long Lock and LockVia wait for a lock that someone else
// holds before they give up with *LockedError. git commands hold index.lock
// for a moment (an editor's `git status` refreshes the index every few
// seconds), so refusing at once would fail calls for nothing; a lock held
// longer than this is a command still working, or a crashed one.
var LockWait = time.Second

// lockHeld is called each time retryLocked finds the lock held, before it
// pauses: the tests release a lock, or count the tries, at a known point of
// the wait instead of sleeping and hoping the wait has begun.
var lockHeld = func(lock string) {}

// retryLocked runs take until it succeeds, fails with something other than
// a held lock, or LockWait has passed (WaitWhileHeld).
func retryLocked(lock string, take func() error) error {
	err, gaveUp := WaitWhileHeld(context.Background(), LockWait, 50*time.Millisecond, take,
		func(err error) bool { return errors.Is(err, os.ErrExist) },
		func(time.Duration) { lockHeld(lock) })
	if gaveUp {
		// The wait we allowed, not the clock's overshoot on a busy
		// machine: the message says what the policy is.
		return &LockedError{Path: lock, Waited: LockWait}
	}
	return err
}

// WaitWhileHeld is the one wait for a lock someone else holds (git's
// index.lock, a ref's lock, another autocoder's process lock): it runs take
// until take returns nil or an error held does not call a held lock, wait
// has passed, or ctx has ended, pausing between tries with a growing
// backoff (2 ms, doubled each time up to maxPause, never past the wait).
// Each time take finds the lock held, onHeld is called with how long the
// wait has lasted, before the wait is judged: the tests let go of the lock
// at a known point, instead of sleeping and hoping the wait has begun.
// gaveUp is true when the wait ran out or ctx ended with the lock held;
// err is then take's last error.
func WaitWhileHeld(ctx context.Context, wait, maxPause time.Duration, take func() error, held func(error) bool, onHeld func(waited time.Duration)) (err error, gaveUp bool) {
	start, pause := time.Now(), 2*time.Millisecond
	for {
		err := take()
		if err == nil || !held(err) {
			return err, false
		}
		onHeld(time.Since(start))
		left := wait - time.Since(start)
		if left <= 0 || ctx.Err() != nil {
			return err, true
		}
		t := time.NewTimer(min(pause, left))
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		pause = min(pause*2, maxPause)
	}
}

// raceproof runs create (which makes a file in path's folder) and, while
// it fails because the folder is missing, makes the folder and runs it
// again, a few times: git gc's pack-refs --prune removes a loose ref's
// folder once it is empty, also between our making it and our lock
// (git's raceproof_create_file retries the same way).
func raceproof(path string, create func() error) error {
	err := create()
	for try := 0; try < 3 && errors.Is(err, os.ErrNotExist); try++ {
		if os.MkdirAll(filepath.Dir(path), 0o777) != nil {
			break
		}
		err = create()
	}
	return err
}

// Lock takes "<path>.lock" with O_EXCL. It returns *LockedError when the
// lock exists after LockWait.
func Lock(path string) (*LockFile, error) {
	var f *os.File
	err := retryLocked(path+".lock", func() error {
		return raceproof(path, func() (err error) {
			f, err = os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
			return err
		})
	})
	if err != nil {
		var le *LockedError
		if errors.As(err, &le) {
			return nil, err
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &LockFile{path: path, lock: path + ".lock", f: f}, nil
}

// LockVia takes "<path>.lock" like Lock, but first creates the file under
// the private name own and then hard-links it to "<path>.lock". link(2)
// fails with EEXIST exactly as O_EXCL does, so the protocol is git's; the
// difference is that a process killed while holding the lock leaves a lock
// file that provably is its own (same inode as own), which ReleaseStale can
// remove without ever touching a lock that git took. own must be on the same
// file system as path (we keep it under .git). os.Link is link(2) on unix
// and CreateHardLink on Windows (NTFS), and os.SameFile compares device and
// inode there, volume and file index here: the proof works on both.
func LockVia(path, own string) (*LockFile, error) {
	f, err := OpenOwn(own, os.O_RDWR)
	var reserved int64
	if err == nil {
		reserved, err = emptied(f)
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	link := func() error { return os.Link(own, path+".lock") }
	if err := retryLocked(path+".lock", func() error { return raceproof(path, link) }); err != nil {
		f.Close()
		os.Remove(own)
		var le *LockedError
		if errors.As(err, &le) {
			return nil, err
		}
		// A file system without hard links (FAT, some network shares):
		// git's own protocol still holds; only the proof of ownership is
		// lost, so a lock a killed run leaves there is removed by hand,
		// as one git leaves.
		return Lock(path)
	}
	return &LockFile{path: path, lock: path + ".lock", own: own, f: f, reserved: reserved}, nil
}

// ReleaseStale removes "<path>.lock" if it is the same file as own (a lock
// that a killed autocoder took through LockVia), then removes own. It
// reports whether it removed a lock. A lock that is not ours is left alone.
func ReleaseStale(path, own string) (bool, error) {
	oi, err := os.Stat(own)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	removed := false
	if li, err := os.Stat(path + ".lock"); err == nil && os.SameFile(oi, li) {
		if err := os.Remove(path + ".lock"); err != nil {
			return false, fmt.Errorf("remove stale lock %s: %w", path+".lock", err)
		}
		removed = true
	}
	return removed, os.Remove(own)
}

// Path is the file the lock protects.
func (l *LockFile) Path() string { return l.path }

// Write writes into the lock file, whose blocks are reserved first (see
// Reserve): Commit renames it over the target.
func (l *LockFile) Write(p []byte) (int, error) {
	if end := l.off + int64(len(p)); end > l.reserved {
		from := max(l.off, l.reserved)
		Reserve(l.f, from, end-from)
		l.reserved = end
	}
	n, err := l.f.Write(p)
	l.off += int64(n)
	return n, err
}

// Commit renames the lock file over the target. Like git (core.fsync's
// default), it does not fsync: the rename makes the new content visible
// atomically, which is what concurrent readers and a killed process need.
func (l *LockFile) Commit() error {
	if l.done {
		return fmt.Errorf("lock %s: already released", l.path)
	}
	l.done = true
	if err := l.f.Close(); err != nil {
		l.remove()
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	l.spares.Keep(l.path)
	if err := Rename(l.lock, l.path); err != nil {
		l.remove()
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	if l.own != "" {
		os.Remove(l.own)
	}
	return nil
}

// Rollback removes the lock file and leaves the target as it was. It is a
// no-op after Commit, so `defer l.Rollback()` is always safe.
func (l *LockFile) Rollback() {
	if l.done {
		return
	}
	l.done = true
	l.f.Close()
	l.remove()
}

func (l *LockFile) remove() {
	os.Remove(l.lock)
	if l.own != "" {
		os.Remove(l.own)
	}
}
