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
	"github.com/autocoder/autocoder/step"
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

// core.splitIndex is a boolean as git reads one: written without a value,
// or as "yes" or "2", it is true, and a one-shot apply of a small index
// writes it split, as git would (git's tweak_split_index); "no" and "0"
// keep a session's index whole.
func TestSplitIndexConfigIsReadAsGitReadsABoolean(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line    string // in .git/config's [core]
		session bool
		split   bool
	}{{"splitIndex", false, true}, {"splitIndex = yes", false, true}, {"splitIndex = 2", false, true},
		{"splitIndex = no", true, false}, {"splitIndex = 0", true, false}} {
		t.Run(tc.line, func(t *testing.T) {
			t.Parallel()
			g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
			cfg := filepath.Join(g.Dir, ".git", "config")
			b, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cfg, append(b, "[core]\n\t"+tc.line+"\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprint(tc.split); strings.TrimSpace(g.Git("config", "--type=bool", "core.splitIndex")) != want {
				t.Fatalf("git reads core.splitIndex as %q", g.Git("config", "--type=bool", "core.splitIndex"))
			}
			e := open(t, g.Dir, txn.Options{SplitIndex: tc.session})
			mustApply(t, e, mkStep("s1", write("b", "b\n")))
			if err := e.Release(); err != nil {
				t.Fatal(err)
			}
			if got := sharedIndexes(t, g); (len(got) == 1) != tc.split {
				t.Errorf("shared indexes: %v, want split %v", got, tc.split)
			}
			g.AssertClean()
		})
	}
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

// core.splitIndex without "=" is git's true: the index is split as the
// user asked, and nothing is said of it (the notice is for a split
// autocoder chose).
func TestALargeIndexSplitAsConfiguredSaysNothing(t *testing.T) {
	t.Parallel()
	g := largeRepo(t)
	f, err := os.OpenFile(filepath.Join(g.Dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[core]\n\tsplitIndex\n")
	f.Close()
	var log strings.Builder
	e := open(t, g.Dir, txn.Options{Log: &log})
	mustApply(t, e, mkStep("s1", replace("d03/f01500.txt", "file", "edited")))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if got := sharedIndexes(t, g); len(got) != 1 {
		t.Errorf("shared indexes with core.splitIndex (no value): %v, want one", got)
	}
	if log.Len() != 0 {
		t.Errorf("log: %q", log.String())
	}
	g.AssertClean()
	g.Fsck()
}

// core.splitIndex=false keeps a large index whole, and says nothing.
func TestALargeIndexStaysWholeWhenGitConfigSaysSo(t *testing.T) {
	t.Parallel()
	g := largeRepo(t)
	g.Git("config", "core.splitIndex", "false")
	assertAppliedWhole(t, g, "core.splitIndex=false")
}

// assertAppliedWhole applies a step with a one-shot engine to g, a large
// repository whose git configuration (set in where) says core.splitIndex
// false, and fails unless the index stays whole, nothing is said of a
// split, and git finds the repository clean.
func assertAppliedWhole(t *testing.T, g *gittest.Repo, where string) {
	t.Helper()
	var log strings.Builder
	e := open(t, g.Dir, txn.Options{Log: &log})
	mustApply(t, e, mkStep("s1", replace("d03/f01500.txt", "file", "edited")))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if got := sharedIndexes(t, g); len(got) != 0 {
		t.Errorf("shared indexes with %s: %v", where, got)
	}
	if log.Len() != 0 {
		t.Errorf("log: %q", log.String())
	}
	g.AssertClean()
	g.Fsck()
}

// After autocoder split a large index by itself, git's everyday commands
// and autocoder's undo and redo keep working on it and agree with each
// other: git status and fsck are the judges at every turn, and an apply
// reads the index git wrote back in between.
func TestALargeSplitIndexKeepsGitAndUndoWorking(t *testing.T) {
	t.Parallel()
	g := largeRepo(t)
	engine := func() *txn.Engine {
		t.Helper()
		return open(t, g.Dir, txn.Options{})
	}
	e := engine()
	mustApply(t, e, mkStep("s1", replace("d03/f01500.txt", "file", "edited")))
	mustApply(t, e, mkStep("s2", write("d19/new.txt", "new\n"), step.Op{Kind: step.OpDelete, Path: "d03/f01501.txt"}))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if len(sharedIndexes(t, g)) != 1 {
		t.Fatalf("shared indexes: %v", sharedIndexes(t, g))
	}
	clean := func(when string) {
		t.Helper()
		if got := g.Git("status", "--porcelain"); got != "" {
			t.Fatalf("%s: git status --porcelain = %.300q", when, got)
		}
		if got := g.Git("diff", "--cached", "--name-only"); got != "" {
			t.Fatalf("%s: git diff --cached = %q", when, got)
		}
		g.Fsck()
	}
	clean("after two steps")

	e = engine()
	if _, err := e.Undo(1); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	clean("after undo")
	if _, ok := g.Read("d19/new.txt"); ok || g.MustRead("d03/f01501.txt") != "file 1501\n" {
		t.Fatal("undo did not take the second step back")
	}
	e = engine()
	if _, err := e.Redo(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	clean("after redo")

	// The user's own work with git on the split index.
	g.Write("d03/f01502.txt", "the user's\n")
	g.Write("d19/mine.txt", "mine\n")
	g.Git("add", "-A")
	if got := g.Git("status", "--porcelain"); got != "M  d03/f01502.txt\nA  d19/mine.txt\n" {
		t.Fatalf("git add -A: status %q", got)
	}
	g.Git("stash")
	clean("after git stash")
	e = engine()
	mustApply(t, e, mkStep("s3", replace("d19/f09999.txt", "file", "edited")))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	clean("after a step on the index git stash wrote")
	g.Git("stash", "pop", "--index")
	if got := g.Git("status", "--porcelain"); got != "M  d03/f01502.txt\nA  d19/mine.txt\n" {
		t.Fatalf("git stash pop --index: status %q", got)
	}
	e = engine()
	mustApply(t, e, mkStep("s4", replace("d03/f01999.txt", "file", "edited")))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if got := g.Git("status", "--porcelain"); got != "M  d03/f01502.txt\nA  d19/mine.txt\n" {
		t.Fatalf("a step over the user's staged files: status %q", got)
	}
	g.Git("commit", "-q", "-m", "the user's")
	clean("after git commit")
	g.Git("checkout", "-q", "main")
	clean("after git checkout main")
	if _, ok := g.Read("d19/mine.txt"); ok || g.MustRead("d03/f01500.txt") != "file 1500\n" {
		t.Fatal("git checkout main left the work branch's files")
	}
	g.Git("checkout", "-q", "autocoder/main")
	clean("after git checkout autocoder/main")
	g.Write("d03/f01500.txt", "scribble\n")
	g.Git("reset", "-q", "--hard", "HEAD~1")
	clean("after git reset --hard")
	e = engine()
	mustApply(t, e, mkStep("s5", write("d03/last.txt", "last\n")))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	clean("after the last step")
	if got := g.Git("ls-files", "d03/last.txt", "d19/mine.txt", "d03/f01501.txt"); got != "d03/last.txt\n" {
		t.Fatalf("git ls-files: %q", got)
	}

	// git writes a new shared index and removes the old one, which this
	// process parsed and keeps (the shared index cache): the next step
	// reads the new one.
	old := sharedIndexes(t, g)
	g.Git("-c", "splitIndex.sharedIndexExpire=now", "update-index", "--split-index")
	if now := sharedIndexes(t, g); len(now) != 1 || len(old) == 1 && now[0] == old[0] {
		t.Fatalf("shared indexes before %v, after git update-index --split-index %v", old, now)
	}
	e = engine()
	mustApply(t, e, mkStep("s6", replace("d03/last.txt", "last", "later")))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	clean("after a step on git's new shared index")
	g.Git("read-tree", "-mu", "HEAD") // -m keeps the sparse checkout's skip-worktree bits
	clean("after git read-tree -mu HEAD")
	e = engine()
	if _, err := e.Undo(1); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	clean("after undo on the index git read-tree wrote")
	if got := g.MustRead("d03/last.txt"); got != "last\n" {
		t.Fatalf("undo: d03/last.txt = %q", got)
	}
}

// core.splitIndex=false set after autocoder split the index brings the
// whole file back at the next step (git's tweak_split_index), with every
// entry as git read it split.
func TestALargeSplitIndexComesBackWholeWhenGitConfigSaysSo(t *testing.T) {
	t.Parallel()
	g := largeRepo(t)
	apply := func(id, path string) {
		t.Helper()
		e := open(t, g.Dir, txn.Options{})
		mustApply(t, e, mkStep(id, replace(path, "file", "edited")))
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	apply("s1", "d03/f01500.txt")
	if len(sharedIndexes(t, g)) != 1 {
		t.Fatalf("shared indexes: %v", sharedIndexes(t, g))
	}
	g.Git("config", "core.splitIndex", "false")
	apply("s2", "d19/f09999.txt")
	ls := g.Git("ls-files", "--stage")
	b, err := os.ReadFile(filepath.Join(g.Dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 62*gitops.SplitFrom { // every entry takes 62 bytes and more
		t.Fatalf("the index is still split: %d bytes", len(b))
	}
	g.AssertClean()
	g.Fsck()
	// git, splitting it again by itself, reads the same entries.
	g.Git("-c", "core.splitIndex=true", "update-index", "--split-index")
	if got := g.Git("ls-files", "--stage"); got != ls {
		t.Error("git ls-files --stage differs once git split the index autocoder wrote whole")
	}
	if got := strings.Count(ls, "\n"); got != gitops.SplitFrom {
		t.Errorf("%d entries, want %d", got, gitops.SplitFrom)
	}
}

// core.splitIndex=false in the user's global configuration keeps a large
// index whole, as git reads it (git config's scopes: system, global,
// repository), and autocoder says nothing of a split. Only the
// repository's own file was read: autocoder split the index of a user who
// had told git, for every repository, not to (libgit2 and go-git tools
// cannot read a split index).
func TestALargeIndexStaysWholeWhenGlobalGitConfigSaysSo(t *testing.T) {
	home := gittest.Isolate(t) // not parallel: HOME is the process's
	g := largeRepo(t)
	f, err := os.OpenFile(filepath.Join(home, ".gitconfig"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("[core]\n\tsplitIndex = false\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(g.Git("config", "core.splitIndex")); got != "false" {
		t.Fatalf("git config core.splitIndex = %q", got)
	}
	assertAppliedWhole(t, g, "core.splitIndex=false in ~/.gitconfig")
}

// A linked worktree has its own index and its own shared index files, in
// its own git directory, as git keeps them: autocoder splits the linked
// worktree's index there, keeps its scan there, and neither worktree's
// index is the other's.
func TestALargeIndexOfALinkedWorktreeIsSplitInItsOwnGitDir(t *testing.T) {
	t.Parallel()
	g := largeRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	g.Git("worktree", "add", "-q", "--no-checkout", wt)
	linked := &gittest.Repo{T: t, Dir: wt}
	linked.Git("sparse-checkout", "set", "d03", "d19")
	linked.Git("read-tree", "-mu", "HEAD")
	gitDir := filepath.Join(g.Dir, ".git", "worktrees", "wt")
	for i, path := range []string{"d03/f01500.txt", "d19/f09999.txt"} {
		e := open(t, wt, txn.Options{})
		mustApply(t, e, mkStep(fmt.Sprint("s", i), replace(path, "file", "edited")))
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := filepath.Glob(filepath.Join(gitDir, "sharedindex.*")); len(got) != 1 {
		t.Errorf("shared indexes in the linked worktree's git dir: %v", got)
	}
	if got := sharedIndexes(t, g); len(got) != 0 {
		t.Errorf("shared indexes in the main worktree's: %v", got)
	}
	if _, err := os.Stat(filepath.Join(gitDir, "autocoder", "shared-index-scan")); err != nil {
		t.Errorf("the linked worktree's kept scan: %v", err)
	}
	if _, err := os.Stat(filepath.Join(g.Dir, ".git", "autocoder", "shared-index-scan")); err == nil {
		t.Error("a kept scan in the main worktree's autocoder folder")
	}
	for _, r := range []*gittest.Repo{g, linked} {
		if got := r.Git("status", "--porcelain"); got != "" {
			t.Errorf("%s: git status --porcelain = %.300q", r.Dir, got)
		}
	}
	if got := linked.Git("diff", "--name-only", "main"); got != "d03/f01500.txt\nd19/f09999.txt\n" {
		t.Errorf("the linked worktree's steps: %q", got)
	}
	g.Fsck()
}
