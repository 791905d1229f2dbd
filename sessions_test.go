package autocoder_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder"
	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// TestTwoWorktreesTwoEnginesAtOnce: the autocoder lock is the worktree's
// (its own git dir), not the repository's. Two engines opened at once on
// two linked worktrees of one repository, neither willing to wait
// (LockWait 0), both open and both commit to their own work branch, while
// the main worktree's files, index and HEAD stay as they were; a second
// engine on the same worktree is still refused (one process per worktree).
func TestTwoWorktreesTwoEnginesAtOnce(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\n"})
	g.Write("a.txt", "the user's unsaved work\n")
	before := g.Snapshot()
	wt1, wt2 := filepath.Join(t.TempDir(), "one"), filepath.Join(t.TempDir(), "two")
	g.Git("worktree", "add", "-q", "-b", "autocoder/s1", wt1)
	g.Git("worktree", "add", "-q", "-b", "autocoder/s2", wt2)
	dirs := &config.Dirs{Config: t.TempDir(), State: t.TempDir()}
	ctx := context.Background()
	e1, err := autocoder.Open(ctx, wt1, autocoder.Options{Dirs: dirs})
	if err != nil {
		t.Fatal(err)
	}
	defer e1.Close()
	e2, err := autocoder.Open(ctx, wt2, autocoder.Options{Dirs: dirs})
	if err != nil {
		t.Fatalf("a second worktree's engine waited for the first's lock: %v", err)
	}
	defer e2.Close()
	if e3, err := autocoder.Open(ctx, wt1, autocoder.Options{Dirs: dirs}); err == nil {
		e3.Close()
		t.Fatal("two engines held one worktree at once")
	}
	for i, e := range []*autocoder.Engine{e1, e2} {
		name := []string{"x.txt", "y.txt"}[i]
		s := &step.Step{ID: "s", Reason: "write " + name, Dialect: "axon",
			Ops: []step.Op{{Kind: step.OpWrite, Path: name, Content: []byte(name + "\n")}}}
		rep := e.Execute(ctx, []step.Item{{Step: s}}, txn.RunOptions{})
		if r := rep.Results[0]; r.Status != step.StatusApplied {
			t.Fatalf("worktree %d: %s %s", i+1, r.Status, r.Error)
		}
	}
	for i, b := range []string{"autocoder/s1", "autocoder/s2"} {
		files := g.Git("log", "-1", "--name-only", "--format=%(trailers:key=Autocoder-Step,valueonly)", b)
		if want := []string{"x.txt", "y.txt"}[i]; !strings.Contains(files, want) || !strings.Contains(files, "s") {
			t.Errorf("%s's newest commit is not the step that wrote %s:\n%s", b, want, files)
		}
	}
	g.Fsck()
	g.AssertUnchanged(without(before, g.Snapshot()))
}

// without is before with the refs of after: the work branches are meant
// to move, the user's checkout is not.
func without(before, after gittest.Snapshot) gittest.Snapshot {
	before.Refs = after.Refs
	return before
}
