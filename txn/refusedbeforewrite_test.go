package txn_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// A step refused by a lock git holds on its branch (a git command that
// outlasts the wait) wrote nothing: its operations were not attempted.
// They were reported rolled back, "the step failed after it and was taken
// back whole", which was not what happened.
func TestAStepRefusedBeforeItsFirstWriteSaysItsOpsWereNotAttempted(t *testing.T) {
	gittest.Isolate(t)
	old := gitops.LockWait
	gitops.LockWait = 50 * time.Millisecond // what is tested is what the result says
	t.Cleanup(func() { gitops.LockWait = old })
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\n", "b.txt": "b\n"})
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("s1", write("a.txt", "uno\n")))
	lock := filepath.Join(g.Dir, ".git", "refs", "heads", "autocoder", "main.lock")
	if err := os.WriteFile(lock, []byte("git's\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("s2", write("a.txt", "two\n"), write("c.txt", "c\n")))
	if r.Status != step.StatusFailed || !strings.Contains(r.Error, "locked") {
		t.Fatalf("status %s: %s; want refused by the branch's lock", r.Status, r.Error)
	}
	for i, op := range r.Ops {
		if op.Status != step.StatusSkipped || !strings.Contains(op.Message, "before it wrote anything") {
			t.Errorf("operation %d: %s %q; want not attempted, before anything was written", i+1, op.Status, op.Message)
		}
	}
	g.AssertUnchanged(before)
	if b, _ := os.ReadFile(lock); string(b) != "git's\n" {
		t.Fatal("git's lock was touched")
	}
	os.Remove(lock)
	g.Fsck()
}
