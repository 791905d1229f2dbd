package gitops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Two sessions started side by side each record their branch's start in
// the config, and git config refuses at once (exit 255) while the other
// holds config.lock: SetBranchStart waits for a brief holder, as for our
// own locks, and refuses a long one with a LockedError, the config as it
// was. Not parallel: it sets the package's LockWait and lockHeld.
func TestBranchStartWaitsForConfigLock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "one"}} {
		if out, err := Git(ctx, dir, append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com"}, args...)...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	head, err := r.ReadHEAD()
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(r.CommonDir, "config.lock")
	defer func(w time.Duration) { LockWait = w }(LockWait)
	LockWait = 200 * time.Millisecond
	tries, release := 0, true
	defer func(f func(string)) { lockHeld = f }(lockHeld)
	lockHeld = func(string) {
		if tries++; tries == 2 && release {
			os.Remove(lock)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(lock, nil, 0o666))
	if _, err := r.SetBranchStart("autocoder/main", head.Hash, "refs/heads/main"); err != nil || tries != 2 {
		t.Fatalf("config.lock held for 2 tries: %v after %d tries, want it waited for", err, tries)
	}
	if start, from, ok := r.BranchStart("autocoder/main"); !ok || start != head.Hash || from != "refs/heads/main" {
		t.Fatalf("recorded %s %s %v", start, from, ok)
	}
	config, _ := os.ReadFile(filepath.Join(r.CommonDir, "config"))
	must(os.WriteFile(lock, []byte("git's"), 0o666))
	tries, release = 0, false
	_, err = r.SetBranchStart("autocoder/other", head.Hash, "refs/heads/main")
	var le *LockedError
	if !errors.As(err, &le) || !strings.Contains(le.Error(), "config") {
		t.Fatalf("config.lock held long: %v, want a LockedError", err)
	}
	if after, _ := os.ReadFile(filepath.Join(r.CommonDir, "config")); string(after) != string(config) {
		t.Fatal("the config changed under a refused write")
	}
	if b, _ := os.ReadFile(lock); string(b) != "git's" {
		t.Fatal("git's lock was touched")
	}
}
