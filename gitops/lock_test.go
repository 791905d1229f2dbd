package gitops

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
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
	// The holder lets go once LockVia has found its lock held three times:
	// LockVia must be waiting, not refusing, when it does.
	// A fifth of the wait the commands use: what is tested is the shape of
	// the wait, and the suite need not spend seconds on it.
	defer func(w time.Duration) { LockWait = w }(LockWait)
	LockWait = 200 * time.Millisecond
	tries, release := 0, true
	defer func(f func(string)) { lockHeld = f }(lockHeld)
	lockHeld = func(lock string) {
		if tries++; tries == 3 && release {
			os.Remove(lock)
		}
	}
	l, err := LockVia(index, filepath.Join(dir, "own-index"))
	if err != nil || tries != 3 {
		t.Fatalf("a lock held for 3 tries: %v after %d tries, want it waited for", err, tries)
	}
	l.Rollback()

	os.WriteFile(index+".lock", []byte("git's"), 0o666)
	tries, release = 0, false
	start := time.Now()
	_, err = LockVia(index, filepath.Join(dir, "own-index"))
	var le *LockedError
	if !errors.As(err, &le) || le.Waited < LockWait || !strings.Contains(le.Hint(), "git") {
		t.Fatalf("a lock held long: %v, want a LockedError after %s naming git", err, LockWait)
	}
	// It waited the whole LockWait, trying again and again (with pauses
	// that grow to 50 ms, about 8 in 200 ms; no bound on the wall
	// clock, which a busy machine stretches).
	if d := time.Since(start); d < LockWait || tries < 5 {
		t.Fatalf("gave up after %s and %d tries, want %s of tries", d, tries, LockWait)
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

func TestIndexLockedLeavesEverything(t *testing.T) {
	defer func(w time.Duration) { LockWait = w }(LockWait)
	LockWait = 100 * time.Millisecond // the refusal, not the wait, is tested here
	r := gittest.NewWithCommit(t, map[string]string{"a.txt": "a.txt\n", "in/b.txt": "in/b.txt\n", "out/c.txt": "out/c.txt\n"})
	indexPath := filepath.Join(r.Dir, ".git", "index")
	if err := os.WriteFile(indexPath+".lock", []byte("git is writing"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := r.Bytes(".git/index")
	lock, err := Lock(indexPath)
	var le *LockedError
	if !errors.As(err, &le) || lock != nil {
		t.Fatalf("Lock = %v, %v; want *LockedError", lock, err)
	}
	if !bytes.Equal(r.Bytes(".git/index"), before) || string(r.Bytes(".git/index.lock")) != "git is writing" {
		t.Error("the index or git's lock changed")
	}
}
