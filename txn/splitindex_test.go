package txn_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops"
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

// largeRepo makes a repository whose index has gitops.SplitFrom entries,
// whole, as git writes it without core.splitIndex. A sparse checkout keeps
// all of them in the index but writes only d03/ and d19/: 10,000 files
// would take seconds of the test budget to write and add.
func largeRepo(t *testing.T) *gittest.Repo {
	t.Helper()
	g := gittest.New(t)
	var fi strings.Builder
	fi.WriteString("commit refs/heads/main\ncommitter A U Thor <author@example.com> 1700000000 +0000\ndata 7\ninitial\n")
	for i := range gitops.SplitFrom {
		c := fmt.Sprintf("file %d\n", i)
		fmt.Fprintf(&fi, "M 100644 inline d%02d/f%05d.txt\ndata %d\n%s\n", i/500, i, len(c), c)
	}
	g.GitIn(fi.String(), "fast-import", "--quiet")
	g.Git("sparse-checkout", "set", "d03", "d19")
	g.Git("read-tree", "-mu", "HEAD")
	if n := strings.Count(g.Git("ls-files"), "\n"); n != gitops.SplitFrom {
		t.Fatalf("the index has %d entries, want %d", n, gitops.SplitFrom)
	}
	if got := sharedIndexes(t, g); len(got) != 0 {
		t.Fatalf("git wrote a split index by itself: %v", got)
	}
	g.AssertClean()
	return g
}

// A one-shot engine writes an index of gitops.SplitFrom entries or more as
// git's split index when git's configuration leaves it open (issue #20: a
// step at 100k files must not rewrite 9 MB). It says so once, git reads
// what it wrote, and the next engine keeps the same shared index.
func TestALargeIndexIsWrittenSplit(t *testing.T) {
	t.Parallel()
	g := largeRepo(t)
	apply := func(id, path string) string {
		t.Helper()
		var log strings.Builder
		e := open(t, g.Dir, txn.Options{Log: &log})
		mustApply(t, e, mkStep(id, replace(path, "file", "edited")))
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		return log.String()
	}
	log := apply("s1", "d03/f01500.txt")
	if !strings.Contains(log, "split index") || !strings.Contains(log, "core.splitIndex false") {
		t.Errorf("the first split write says nothing of it; log:\n%s", log)
	}
	shared := sharedIndexes(t, g)
	if len(shared) != 1 {
		t.Fatalf("shared indexes after the first apply: %v, want one", shared)
	}
	if log := apply("s2", "d19/f09999.txt"); log != "" {
		t.Errorf("the second apply logged %q, want nothing: the index was split already", log)
	}
	if got := sharedIndexes(t, g); len(got) != 1 || got[0] != shared[0] {
		t.Errorf("shared indexes after the second apply: %v, want still %v", got, shared)
	}
	small, err := os.Stat(filepath.Join(g.Dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if big, err := os.Stat(shared[0]); err != nil || small.Size()*20 > big.Size() {
		t.Errorf("index %d bytes beside a shared index of %v: a step does not write a small file", small.Size(), big)
	}
	g.AssertClean()
	g.Fsck()
	if got := g.Git("show", "autocoder/main:d19/f09999.txt"); got != "edited 9999\n" {
		t.Errorf("the second step's file in git: %q", got)
	}
	// git reads the entries autocoder changed as it committed them.
	if got := g.Git("diff", "--cached", "--name-only", "autocoder/main"); got != "" {
		t.Errorf("git diff --cached against the work branch: %q", got)
	}
}

// core.splitIndex=false keeps a large index whole, and says nothing.
func TestALargeIndexStaysWholeWhenGitConfigSaysSo(t *testing.T) {
	t.Parallel()
	g := largeRepo(t)
	g.Git("config", "core.splitIndex", "false")
	var log strings.Builder
	e := open(t, g.Dir, txn.Options{Log: &log})
	mustApply(t, e, mkStep("s1", replace("d03/f01500.txt", "file", "edited")))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if got := sharedIndexes(t, g); len(got) != 0 {
		t.Errorf("shared indexes with core.splitIndex=false: %v", got)
	}
	if log.Len() != 0 {
		t.Errorf("log: %q", log.String())
	}
	g.AssertClean()
	g.Fsck()
}
