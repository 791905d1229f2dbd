package txn_test

import (
	"context"
	"github.com/autocoder/autocoder/step"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/txn"
)

// failFirstFlush makes the first index write of an engine fail, as a full
// disk or a failed rename does: the verify hook runs while the engine holds
// index.lock, and taking the lock file away makes the rename of Flush fail
// (WriteIndex returns "write index: ... no such file or directory").
func failFirstFlush() func(context.Context, string) (string, error) {
	calls := 0
	return func(_ context.Context, root string) (string, error) {
		calls++
		if calls == 1 {
			os.Remove(filepath.Join(root, ".git", "index.lock"))
		}
		return "", nil
	}
}

// A failed Flush keeps e.debt in memory but drops the index it was owed on
// (e.held = nil, ixCache = nil). The next step of the same engine reads the
// stale index from disk, and its Flush writes it and clears the whole debt,
// step 1's path included: the index then disagrees with HEAD for a.txt for
// good, and no later Open can repair it (the debt file is gone too).
func TestFlushFailureThenNextStepDropsIndexDebt(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	e := open(t, g.Dir, txn.Options{Verify: failFirstFlush()})
	r1 := e.Apply(context.Background(), mkStep("s1", write("a.txt", "A\n")))
	if !strings.Contains(r1.Error, "index") {
		t.Fatalf("the injection did not make the index write fail: %s %s", r1.Status, r1.Error)
	}
	mustApply(t, e, mkStep("s2", write("b.txt", "B\n")))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// A new engine (the next command) runs recovery: nothing is owed any more.
	e2 := open(t, g.Dir, txn.Options{})
	e2.Close()
	if st := g.Git("--no-optional-locks", "status", "--porcelain"); st != "" {
		t.Fatalf("after a failed index write and one more step, git status shows:\n%s", st)
	}
	g.Fsck()
}

// A step outside a run (a session's call) writes the index before its
// commit point: when that write fails, the step fails and leaves nothing,
// the branch, the file and the index as they were, where it used to be
// committed with its index entries owed to the next command.
func TestAFailedIndexWriteFailsTheStepAndLeavesNothing(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	before := g.Snapshot()
	e := open(t, g.Dir, txn.Options{Verify: failFirstFlush()})
	r := e.Apply(context.Background(), mkStep("s1", write("a.txt", "A\n")))
	if r.Status != step.StatusFailed || !strings.Contains(r.Error, "write the index") {
		t.Fatalf("status %s error %q: want failed, with the failed index write said", r.Status, r.Error)
	}
	e.Close()
	g.AssertRestored(before)
	if _, err := g.GitErr("rev-parse", "--verify", "-q", "refs/heads/autocoder/main"); err == nil {
		t.Fatal("the failed step left its work branch")
	}
	if st := g.Git("--no-optional-locks", "status", "--porcelain"); st != "" {
		t.Fatalf("git status:\n%s", st)
	}
	g.Fsck()
}

// Run returns as soon as its end-of-run Flush fails, before the --atomic
// rollback: a failed --atomic run then leaves its earlier steps committed.
func TestAtomicRunKeepsStepsWhenFlushFails(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	e := open(t, g.Dir, txn.Options{Verify: failFirstFlush()})
	rs := e.Run(context.Background(), []step.Item{
		{Step: mkStep("1", write("a.txt", "A\n"))},
		{Step: mkStep("2", replace("b.txt", "nope", "x"))},
	}, txn.RunOptions{Atomic: true})
	if len(rs) < 2 || rs[1].Status != step.StatusFailed {
		t.Fatalf("step 2 should fail: %+v", rs)
	}
	e.Close()
	open(t, g.Dir, txn.Options{}).Close() // the next command's recovery
	var sts []string
	for _, r := range rs {
		sts = append(sts, r.StepID+"="+string(r.Status))
	}
	if _, err := g.GitErr("rev-parse", "--verify", "-q", "refs/heads/autocoder/main"); err == nil {
		t.Fatalf("--atomic run failed (%s) but step 1 stays committed on autocoder/main; a.txt = %q",
			strings.Join(sts, " "), g.MustRead("a.txt"))
	}
	if g.MustRead("a.txt") != "a\n" {
		t.Fatal("a.txt not restored")
	}
}

// A debt file that does not decode is not taken for an empty one: the
// entries it owes would be lost when the next step rewrites it. The step
// fails, says which file and what to do, and changes nothing.
func TestUnreadableIndexDebtStopsTheStep(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	defer e.Close()
	debt := filepath.Join(g.Dir, ".git", "autocoder", "index-debt.json")
	if err := os.WriteFile(debt, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := g.Snapshot()
	rs := e.Run(context.Background(), []step.Item{{Step: mkStep("s1", write("a.txt", "A\n"))}}, txn.RunOptions{})
	if len(rs) != 1 || rs[0].Status != step.StatusFailed || !strings.Contains(rs[0].Error, "index-debt.json") || rs[0].Hint == "" {
		t.Fatalf("want a failed step naming the debt file with a hint, got %+v", rs)
	}
	g.AssertUnchanged(before)
	if b, _ := os.ReadFile(debt); string(b) != "{not json" {
		t.Fatalf("the debt file was rewritten: %q", b)
	}
}
