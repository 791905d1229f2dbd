package gitops

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// LockedError reports a lock file that someone else holds: a running git
// command, another tool, or one that crashed. autocoder never removes it.
type LockedError struct {
	Path string // the lock file
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("%s is locked: %s exists", filepath.Base(e.Target()), e.Path)
}

// Target is the file the lock protects.
func (e *LockedError) Target() string { return e.Path[:len(e.Path)-len(".lock")] }

// Hint says what to do about a held lock.
func (e *LockedError) Hint() string {
	return fmt.Sprintf("another git process seems to be running in this repository; wait for it and try again. If none is running, a crashed git left the lock behind: remove %s yourself", e.Path)
}

// LockFile is git's lock-file protocol: create "<path>.lock" with O_EXCL,
// write the new content into it, then rename it over path (Commit) or remove
// it (Rollback). Readers never see a torn file, and a lock held by git makes
// us refuse rather than wait or steal it.
type LockFile struct {
	path string
	f    *os.File
	done bool
}

// Lock takes "<path>.lock". It returns *LockedError when the lock exists.
func Lock(path string) (*LockFile, error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, &LockedError{Path: path + ".lock"}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &LockFile{path: path, f: f}, nil
}

// Path is the file the lock protects.
func (l *LockFile) Path() string { return l.path }

// Write writes into the lock file.
func (l *LockFile) Write(p []byte) (int, error) { return l.f.Write(p) }

// Commit flushes the lock file to disk and renames it over the target.
func (l *LockFile) Commit() error {
	if l.done {
		return fmt.Errorf("lock %s: already released", l.path)
	}
	l.done = true
	if err := l.f.Sync(); err != nil {
		l.f.Close()
		os.Remove(l.f.Name())
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	if err := l.f.Close(); err != nil {
		os.Remove(l.f.Name())
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	if err := os.Rename(l.f.Name(), l.path); err != nil {
		os.Remove(l.f.Name())
		return fmt.Errorf("write %s: %w", l.path, err)
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
	os.Remove(l.f.Name())
}
