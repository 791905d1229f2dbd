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
// written (a folder has its name) fails the step before its ref names it: the work tree file it had already written is
// put back, and the repository is as before, by git's reading. The next
// step, once the name is free, is applied, and git reads its objects.
func TestAnObjectThatCannotBeWrittenBehindFailsTheStepWithNothingChanged(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\n", "dir/b.txt": "b\n"})
	e := open(t, g.Dir, txn.Options{})
	content := "written behind\n"
	unblock := blockBlob(t, g, content)
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
	unblock()
	r = mustApply(t, e, mkStep("s2", write("a.txt", content)))
	if got := g.Git("cat-file", "-p", r.Commit+":a.txt"); got != content {
		t.Fatalf("git reads a.txt at the commit as %q", got)
	}
	g.AssertClean()
	g.Fsck()
}

// A step that empties a file, or makes an empty one, writes it from the
// step's own content: its blob (the empty one) may not be on disk yet when
// the work tree file is written. It was read back from the object store,
// and a step that emptied autocoder.toml failed with "object not found"
// when the writer behind had not written it yet. Here the blob cannot be
// written at all: the step fails for that, having written the file, and
// changes nothing; once it can, the step is applied.
func TestAStepThatEmptiesAFileWritesItsOwnContent(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\n", "b.txt": "b\n"})
	e := open(t, g.Dir, txn.Options{})
	unblock := blockBlob(t, g, "")
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("s1", write("a.txt", "")))
	if r.Status != step.StatusFailed || !strings.Contains(r.Error, "write blob object") || strings.Contains(r.Error, "read blob") {
		t.Fatalf("status %s: %s; want failed writing the empty blob, not reading it", r.Status, r.Error)
	}
	g.AssertUnchanged(before)
	unblock()
	r = mustApply(t, e, mkStep("s2", write("a.txt", ""), write("empty.txt", "")))
	for _, f := range []string{"a.txt", "empty.txt"} {
		if got := g.MustRead(f); got != "" {
			t.Errorf("%s holds %q, want nothing", f, got)
		}
		if got := g.Git("cat-file", "-s", r.Commit+":"+f); strings.TrimSpace(got) != "0" {
			t.Errorf("git reads %s at the commit as %s bytes", f, got)
		}
	}
	g.AssertClean()
	g.Fsck()
}

// A step that fails before it waits for its objects (here: cancelled
// while it writes its work tree file) rolls back without them: their
// failure is not the rollback's. It was: the rollback waited for the
// objects, took their error for its own, and left the journal for the
// next command.
func TestARollbackDoesNotWaitForTheObjectsWrittenBehind(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\n", "b.txt": "b\n"})
	e := open(t, g.Dir, txn.Options{})
	content := "cancelled behind\n"
	unblock := blockBlob(t, g, content)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	txn.BeforeReplace(t, func(string) { cancel() })
	before := g.Snapshot()
	r := e.Apply(ctx, mkStep("s1", write("a.txt", content)))
	if r.Status == step.StatusApplied || strings.Contains(r.Error, "rolling back failed") {
		t.Fatalf("status %s: %s; want a clean rollback", r.Status, r.Error)
	}
	if _, err := os.Stat(filepath.Join(g.Dir, ".git", "autocoder", "journal.json")); err == nil {
		t.Error("the journal was kept: the rollback failed")
	}
	g.AssertUnchanged(before)
	unblock()
	g.Fsck()
}

// blockBlob makes a folder, not empty, where content's blob would be
// written, so that it cannot be, and returns what removes it.
func blockBlob(t *testing.T, g *gittest.Repo, content string) (unblock func()) {
	t.Helper()
	hex := gitops.BlobHash([]byte(content)).String()
	blocker := filepath.Join(g.Dir, ".git", "objects", hex[:2], hex[2:])
	if err := os.MkdirAll(blocker, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(blocker, "x"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.RemoveAll(blocker); err != nil {
			t.Fatal(err)
		}
	}
}

// A file that vanishes while the step is written (git prune removing a
// temporary file beside us; here the work tree file's, before its rename)
// is autocoder's failure, not the model's: it was classed as the path not
// found (FlyCode's NOT_FOUND), which tells the model its path is wrong.
func TestAFileThatVanishesWhileTheStepIsWrittenIsNoPathNotFound(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\n", "b.txt": "b\n"})
	e := open(t, g.Dir, txn.Options{})
	txn.BeforeReplace(t, func(tmp string) { os.Remove(tmp) })
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("s1", write("a.txt", "two\n")))
	if r.Status != step.StatusFailed || r.Reason == step.ReasonNotFound {
		t.Fatalf("status %s, reason %s: %s; want failed, and not for a path not found", r.Status, r.Reason, r.Error)
	}
	g.AssertUnchanged(before)
	g.Fsck()
}
