package txn_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/txn"
)

// sharedIndexes lists the repository's sharedindex.* files.
func sharedIndexes(t *testing.T, g *gittest.Repo) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(g.Dir, ".git", "sharedindex.*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A session's engine (Options.SplitIndex) writes the index as git's split
// index: a call writes a small file, git reads it as autocoder committed
// it, and a user's git add between two calls stays.
func TestSessionWritesASplitIndexGitReads(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("src/f%02d.txt", i)] = fmt.Sprintf("file %d\n", i)
	}
	g := gittest.NewWithCommit(t, files)
	e := open(t, g.Dir, txn.Options{SplitIndex: true})
	ctx := context.Background()
	call := func(i int) {
		t.Helper()
		if err := e.Acquire(ctx, time.Second); err != nil {
			t.Fatal(err)
		}
		mustApply(t, e, mkStep(fmt.Sprint("s", i), replace(fmt.Sprintf("src/f%02d.txt", i), "file", "edited"), write(fmt.Sprintf("new/n%d.txt", i), "new\n")))
		if err := e.Release(); err != nil {
			t.Fatal(err)
		}
	}
	call(1)
	shared := sharedIndexes(t, g)
	if len(shared) != 1 {
		t.Fatalf("shared indexes after the first call: %v, want one", shared)
	}
	call(2)
	// The user stages a file of their own between two calls.
	g.Write("mine.txt", "the user's\n")
	g.Git("add", "mine.txt")
	call(3)
	call(4)
	if got := sharedIndexes(t, g); len(got) != 1 || got[0] != shared[0] {
		t.Errorf("shared indexes after 4 small calls: %v, want still %v", got, shared)
	}
	small, err := os.Stat(filepath.Join(g.Dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	big, err := os.Stat(shared[0])
	if err != nil {
		t.Fatal(err)
	}
	if small.Size() >= big.Size() {
		t.Errorf("index %d bytes, shared index %d: the index is not the small half", small.Size(), big.Size())
	}

	check := func(when string) {
		t.Helper()
		if got := g.Git("status", "--porcelain"); got != "A  mine.txt\n" {
			t.Errorf("%s: git status --porcelain = %q, want only the user's staged file", when, got)
		}
		if got := g.Git("diff", "--cached", "--name-status", "HEAD"); got != "A\tmine.txt\n" {
			t.Errorf("%s: git diff --cached HEAD = %q, want only the user's file", when, got)
		}
		g.Fsck()
	}
	check("split")
	lsSplit := g.Git("ls-files", "--stage")
	g.Git("update-index", "--no-split-index")
	check("after git update-index --no-split-index")
	if got := g.Git("ls-files", "--stage"); got != lsSplit {
		t.Errorf("ls-files --stage differs once unsplit:\n%s\nsplit:\n%s", got, lsSplit)
	}
}

// core.splitIndex=false keeps a session's index whole.
func TestSessionKeepsTheIndexWholeWhenGitConfigSaysSo(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	g.Git("config", "core.splitIndex", "false")
	e := open(t, g.Dir, txn.Options{SplitIndex: true})
	mustApply(t, e, mkStep("s1", write("b", "b\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	if got := sharedIndexes(t, g); len(got) != 0 {
		t.Errorf("shared indexes with core.splitIndex=false: %v", got)
	}
	g.AssertClean()
}
