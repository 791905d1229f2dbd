package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// An MCP session's first call, killed after it wrote the index into
// index.lock and before HEAD moved to the new work branch, leaves the file
// written and git's locks held: git refuses to commit until the user
// removes them. The user who then commits the file (git commit -a) has
// moved on: the next session must leave that commit's files as they are,
// not put back the state before the call under it.
func TestAKilledFirstCallThenTheUsersCommitIsLeftAlone(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	killFirstWrite(t, g.Dir, 3)
	if got := g.Git("symbolic-ref", "HEAD"); got != "refs/heads/main\n" {
		t.Fatalf("HEAD moved before the kill: %s", got)
	}
	if got := g.Git("diff", "--cached", "--name-only"); got != "" {
		t.Fatalf("the killed call's entries are in the index: %s", got)
	}
	// git refuses while index.lock and HEAD.lock are there, and says to
	// remove them.
	if _, err := g.GitErr("commit", "-q", "-a", "-m", "the user's commit"); err == nil {
		t.Fatal("git committed beside index.lock")
	}
	os.Remove(filepath.Join(g.Dir, ".git", "index.lock"))
	os.Remove(filepath.Join(g.Dir, ".git", "HEAD.lock"))
	g.Git("commit", "-q", "-a", "-m", "the user's commit")
	if got := g.Git("show", "HEAD:a.txt"); got != "call 0\n" {
		t.Fatalf("the user's commit holds %q", got)
	}
	nextSessionLeavesItClean(t, g)
	if got := g.MustRead("a.txt"); !strings.HasPrefix(got, "call") {
		t.Fatalf("a.txt is %q", got)
	}
	g.Fsck()
}

// A session's call holds index.lock from its index write until its ref
// has moved, as git commit does: killed right after the ref moved, it
// leaves the index file as it was and the lock held, so that no git
// command wrote the index in between; the next session finishes the step.
func TestAKilledCallHeldIndexLockUntilItsRefMoved(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	killFirstWrite(t, g.Dir, 5)
	if got := g.Git("show", "autocoder/main:a.txt"); got != "call 0\n" {
		t.Fatalf("the ref did not move before the kill: a.txt is %q there", got)
	}
	if _, err := os.Stat(filepath.Join(g.Dir, ".git", "index.lock")); err != nil {
		t.Fatalf("index.lock was not held until the ref moved: %v", err)
	}
	if got := g.Git("ls-files", "-s", "a.txt"); !strings.Contains(got, strings.TrimSpace(g.Git("rev-parse", "main:a.txt"))) {
		t.Fatalf("the index file changed before the ref moved: %s", got)
	}
	nextSessionLeavesItClean(t, g)
	if got := g.Git("show", "HEAD:a.txt"); got != "call 0\n" {
		t.Fatalf("the step was not finished: HEAD's a.txt is %q", got)
	}
	g.Fsck()
}

// killFirstWrite has an MCP session in dir write "call 0\n" into a.txt, its
// first call, and kills it at crash point point. The points of a first
// call: 1 after the journal, 2 after the file, 3 after the index (written
// into index.lock), 4 after HEAD, 5 after the ref.
func killFirstWrite(t *testing.T, dir string, point int) {
	t.Helper()
	if !killedWriting(t, dir, point, "a.txt") {
		t.Fatal("the session was not killed")
	}
}

// nextSessionLeavesItClean runs the next session (its recovery, then a
// read) and checks that git status is clean after it.
func nextSessionLeavesItClean(t *testing.T, g *gittest.Repo) {
	t.Helper()
	m := startMCP(t, g.Dir, nil)
	m.mustCall("fs_read", map[string]any{"path": "a.txt"})
	if err := m.close(); err != nil {
		t.Fatal(err)
	}
	if got := g.Git("status", "--porcelain"); got != "" {
		t.Fatalf("after the next session, git status:\n%s", got)
	}
}
