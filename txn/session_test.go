package txn_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// An engine kept for a session releases the repository between calls: git
// and another autocoder work meanwhile, and what they change is seen by the
// next call (here a submodule the user adds).
func TestSessionReleasesTheRepositoryBetweenCalls(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	ctx := context.Background()
	mustApply(t, e, mkStep("s1", write("b", "b\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}

	// Between calls: another autocoder runs, and the user adds a gitlink.
	other := open(t, g.Dir, txn.Options{})
	mustApply(t, other, mkStep("other", write("c", "c\n")))
	head := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	g.Git("update-index", "--add", "--cacheinfo", "160000,"+head+",sub")
	os.Mkdir(filepath.Join(g.Dir, "sub"), 0o777)

	// The next call waits for the other autocoder, then sees the gitlink.
	done := make(chan error, 1)
	go func() { done <- e.Acquire(ctx, 5*time.Second) }()
	time.Sleep(100 * time.Millisecond)
	other.Close()
	if err := <-done; err != nil {
		t.Fatalf("Acquire while another autocoder works: %v, want it waited for", err)
	}
	before := g.Snapshot()
	if r := e.Apply(ctx, mkStep("sub", write("sub/x", "x\n"))); r.Status != step.StatusFailed || r.Class != step.ClassRefused {
		t.Fatalf("a write into a submodule added between calls: %s (%s)", r.Status, r.Error)
	}
	g.AssertUnchanged(before)
	mustApply(t, e, mkStep("s2", write("d", "d\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}

	// A lock held longer than the wait is a refusal naming the holder.
	other = open(t, g.Dir, txn.Options{})
	defer other.Close()
	var busy *txn.BusyError
	if err := e.Acquire(ctx, 200*time.Millisecond); err == nil || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("Acquire past the wait: %v, want a BusyError naming the holder", err)
	} else if _, ok := err.(*txn.BusyError); !ok {
		t.Fatalf("Acquire past the wait: %T, want %T", err, busy)
	}
	// What the user staged between the calls is still staged.
	if got := g.Git("status", "--porcelain"); got != "A  sub\n" {
		t.Fatalf("status:\n%s", got)
	}
	g.Fsck()
}

// A git gc between two calls packs the objects the session's first call
// wrote and removes the loose ones; the next call finds them in the new
// pack (go-git reads its list of packs once, so the store is reopened).
func TestSessionSurvivesGitGCBetweenCalls(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	ctx := context.Background()
	mustApply(t, e, mkStep("s1", write("b", "one\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	g.Git("gc", "-q", "--prune=now")
	if err := e.Acquire(ctx, time.Second); err != nil {
		t.Fatal(err)
	}
	mustApply(t, e, mkStep("s2", replace("b", "one", "two"), write("c", "c\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	g.AssertClean()
	g.Fsck()
}
