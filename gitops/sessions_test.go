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
	r, head := oneCommitRepo(t)
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
	_, err := r.SetBranchStart("autocoder/other", head.Hash, "refs/heads/main")
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

// AddSession makes the branch only if it is not there (a second session
// of the same name gets a *BranchTakenError, the branch as the first made
// it), and takes it back when the worktree cannot be made: git worktree
// add -b would have left the branch behind.
func TestAddSessionLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, head := oneCommitRepo(t)
	path, err := r.AddSession(ctx, "autocoder/main", head.Hash)
	if err != nil {
		t.Fatal(err)
	}
	var taken *BranchTakenError
	if _, err := r.AddSession(ctx, "autocoder/main", head.Hash); !errors.As(err, &taken) {
		t.Fatalf("a second session of one name: %v, want a BranchTakenError", err)
	}
	// A folder in the way of the worktree: refused, no branch left.
	in := filepath.Join(r.sessionsDir(), "autocoder-other")
	if err := os.MkdirAll(in, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "f"), []byte("x"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := r.AddSession(ctx, "autocoder/other", head.Hash); err == nil || r.BranchExists("autocoder/other") {
		t.Fatalf("a worktree that could not be made: %v, branch left: %v", err, r.BranchExists("autocoder/other"))
	}
	list, err := r.Sessions(ctx)
	if err != nil || len(list) != 1 || list[0].Path != path || list[0].Branch != "autocoder/main" || list[0].Running {
		t.Fatalf("sessions: %+v, %v", list, err)
	}
	if err := r.RemoveSession(ctx, path); err != nil {
		t.Fatal(err)
	}
	if list, _ := r.Sessions(ctx); len(list) != 0 {
		t.Fatalf("a removed session is listed: %+v", list)
	}
}

// oneCommitRepo is a repository on main with one empty commit, opened, and
// its HEAD; it is closed when the test ends.
func oneCommitRepo(t *testing.T) (*Repo, Head) {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "one"}} {
		if out, err := Git(context.Background(), dir, append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com"}, args...)...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	r := openIn(t, dir)
	head, err := r.ReadHEAD()
	if err != nil {
		t.Fatal(err)
	}
	return r, head
}
