package txn_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// A step's objects are written behind it, while it writes its journal, its
// work tree files and its index (gitops.WriteBehind). One that cannot be
// written (its fan-out folder's name is taken by a file) fails the step
// before its ref names it: the work tree file it had already written is
// put back, and the repository is as before, by git's reading. The next
// step, once the name is free, is applied, and git reads its objects.
func TestAnObjectThatCannotBeWrittenBehindFailsTheStepWithNothingChanged(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\n", "dir/b.txt": "b\n"})
	e := open(t, g.Dir, txn.Options{})
	content := "written behind\n"
	hex := gitops.BlobHash([]byte(content)).String()
	blocker := filepath.Join(g.Dir, ".git", "objects", hex[:2])
	if _, err := os.Stat(blocker); err == nil {
		t.Skipf("the fixture already has objects/%s", hex[:2])
	}
	if err := os.WriteFile(blocker, []byte("not a folder\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	replaced := 0
	txn.BeforeReplace(t, func(string) { replaced++ })
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("s1", write("a.txt", content), write("dir/new.txt", "new\n")))
	if r.Status != step.StatusFailed || !strings.Contains(r.Error, "write blob object") {
		t.Fatalf("status %s: %s; want failed writing the blob", r.Status, r.Error)
	}
	if replaced < 2 {
		t.Errorf("a.txt was replaced %d times, want twice: written while the objects were, then put back", replaced)
	}
	g.AssertUnchanged(before)
	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	r = mustApply(t, e, mkStep("s2", write("a.txt", content)))
	if got := g.Git("cat-file", "-p", r.Commit+":a.txt"); got != content {
		t.Fatalf("git reads a.txt at the commit as %q", got)
	}
	g.AssertClean()
	g.Fsck()
}
