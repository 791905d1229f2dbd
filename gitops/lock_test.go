package gitops

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A lock that git holds for a moment (an editor's `git status` refreshing
// the index) is waited for; one held past LockWait is a refusal that names
// git and says how long we waited, and the lock is left alone.
func TestLockWaitsForABriefHolder(t *testing.T) {
	dir := t.TempDir()
	index := filepath.Join(dir, "index")
	os.WriteFile(index, []byte("x"), 0o666)
	if err := os.WriteFile(index+".lock", nil, 0o666); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(150 * time.Millisecond)
		os.Remove(index + ".lock")
	}()
	l, err := LockVia(index, filepath.Join(dir, "own-index"))
	if err != nil {
		t.Fatalf("a lock held for 150 ms: %v, want it waited for", err)
	}
	l.Rollback()

	os.WriteFile(index+".lock", []byte("git's"), 0o666)
	start := time.Now()
	_, err = LockVia(index, filepath.Join(dir, "own-index"))
	var le *LockedError
	if !errors.As(err, &le) || le.Waited < LockWait || !strings.Contains(le.Hint(), "git") {
		t.Fatalf("a lock held long: %v, want a LockedError after %s naming git", err, LockWait)
	}
	if d := time.Since(start); d > LockWait+500*time.Millisecond {
		t.Fatalf("waited %s, want about %s", d, LockWait)
	}
	if b, _ := os.ReadFile(index + ".lock"); string(b) != "git's" {
		t.Fatal("git's lock was touched")
	}
	if _, err := Lock(index); !errors.As(err, &le) {
		t.Fatalf("Lock: %v, want a LockedError", err)
	}
}

// git gc's pack-refs --prune removes a loose ref's folder once it holds
// nothing, and may do it between our making the folder and our taking the
// ref's lock: a step then failed with "open …/main.lock: no such file or
// directory". A lock whose folder is missing makes it and tries again, as
// git's raceproof_create_file does; the ownership proof of LockVia stays.
func TestLockMakesItsFolderAgain(t *testing.T) {
	dir := t.TempDir()
	for _, via := range []bool{false, true} {
		ref := filepath.Join(dir, "refs", "heads", "autocoder", "main")
		os.RemoveAll(filepath.Join(dir, "refs"))
		var l *LockFile
		var err error
		own := filepath.Join(dir, "own-main")
		if via {
			l, err = LockVia(ref, own)
		} else {
			l, err = Lock(ref)
		}
		if err != nil {
			t.Fatalf("via=%v: %v, want the folder made again and the lock taken", via, err)
		}
		if via {
			oi, _ := os.Stat(own)
			li, _ := os.Stat(ref + ".lock")
			if oi == nil || li == nil || !os.SameFile(oi, li) {
				t.Errorf("the lock is not the private file: the proof of ownership is lost")
			}
		}
		if _, err := l.Write([]byte("x\n")); err != nil {
			t.Fatal(err)
		}
		if err := l.Commit(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(ref); string(b) != "x\n" {
			t.Errorf("via=%v: the ref holds %q", via, b)
		}
	}
}
