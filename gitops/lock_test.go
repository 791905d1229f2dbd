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
