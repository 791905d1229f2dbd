package txn_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// A call cancelled before it starts writes nothing.
func TestCancelledBeforeTheStepLeavesNoTrace(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	before := g.Snapshot()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := e.Apply(ctx, mkStep("s", write("b", "b\n"), replace("a", "a", "A")))
	if r.Status != step.StatusFailed || r.Class != step.ClassStepFailed || !strings.Contains(r.Error, "cancelled") {
		t.Fatalf("status %s class %s (%s), want failed (1): cancelled", r.Status, r.Class, r.Error)
	}
	g.AssertUnchanged(before)
}

// A call cancelled after its files are written but before the branch ref
// moves (here: while the verify command runs) is rolled back: the worktree,
// the index and the refs are as before.
func TestCancelledBeforeTheCommitPointIsRolledBack(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	g.Write("untracked.txt", "u\n")
	ctx, cancel := context.WithCancel(context.Background())
	e := open(t, g.Dir, txn.Options{Verify: func(context.Context, string) (string, error) {
		cancel() // the client cancels while the files are on disk
		return "", nil
	}})
	before := g.Snapshot()
	r := e.Apply(ctx, mkStep("s", write("dir/b", "b\n"), replace("a", "a", "A")))
	if r.Status != step.StatusFailed || !strings.Contains(r.Error, "cancelled") {
		t.Fatalf("status %s (%s), want failed: cancelled", r.Status, r.Error)
	}
	g.AssertRestored(before)
	g.Fsck()
}

// Past the commit point the step stays; its program gets the cancelled
// context (the runner stops it with its process group).
func TestCancelledProgramGetsTheContext(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	ctx, cancel := context.WithCancel(context.Background())
	var seen error
	e := open(t, g.Dir, txn.Options{Programs: ctxPrograms{run: func(pctx context.Context) {
		cancel()
		<-pctx.Done()
		seen = pctx.Err()
	}}})
	s := mkStep("s", write("b", "b\n"))
	s.Programs = []step.Program{{Command: "sleep 10", Shell: true}}
	r := e.Apply(ctx, s)
	if r.Status != step.StatusApplied || r.Commit == "" {
		t.Fatalf("status %s (%s): a step past its commit point must stay", r.Status, r.Error)
	}
	if !errors.Is(seen, context.Canceled) {
		t.Fatalf("the program saw %v, want the call's cancelled context", seen)
	}
	g.AssertClean()
}

type ctxPrograms struct{ run func(context.Context) }

func (ctxPrograms) Allowed(step.Program) (bool, string) { return true, "" }
func (f ctxPrograms) Run(ctx context.Context, dir string, p step.Program) step.ProgramResult {
	f.run(ctx)
	return step.ProgramResult{Status: "failure", Error: "stopped"}
}
