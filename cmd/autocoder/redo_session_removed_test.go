package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A kept session (killed, or with changes git would not remove): from the
// checkout, `undo --branch` of its branch is run in its worktree ("one
// checked out in another worktree is undone in that worktree"), and its
// redo stack is kept in that worktree's own folder. Once the user removes
// the worktree as the hint says (git worktree remove --force), the branch
// stays, and `redo --branch` from the checkout must still put back what
// the undo took away.
func TestRedoBranchAfterTheSessionWorktreeOfItsUndoWasRemoved(t *testing.T) {
	t.Parallel()
	g := crashRepo(t)
	base := strings.TrimSpace(g.Git("symbolic-ref", "--short", "HEAD"))
	plan := filepath.Join(t.TempDir(), "plan.md")
	os.WriteFile(plan, []byte(crashPlan), 0o666)
	if out, err := autocoder(t, g.Dir, nil, "apply", plan); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	work := strings.TrimSpace(g.Git("symbolic-ref", "--short", "HEAD"))
	tip := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	g.Git("switch", "-q", base)
	kept := filepath.Join(t.TempDir(), "kept")
	g.Git("worktree", "add", "-q", kept, work)
	if out, err := autocoder(t, g.Dir, nil, "undo", "--branch", work); err != nil {
		t.Fatalf("undo --branch: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(g.Git("rev-parse", work)); got == tip {
		t.Fatal("undo --branch did not move the branch")
	}
	g.Git("worktree", "remove", "--force", kept)
	out, err := autocoder(t, g.Dir, nil, "redo", "--branch", work)
	if got := strings.TrimSpace(g.Git("rev-parse", work)); got != tip {
		t.Fatalf("redo --branch did not put back the step undo --branch took away (%v):\n%s", err, out)
	}
}

// The other way round: `undo --branch` from the checkout of a branch
// checked out nowhere keeps its stack in the checkout's folder; once the
// branch is checked out in a worktree (git worktree add, or a session
// made on it), `redo --branch` from the checkout is run there, and `redo`
// there, and neither finds the step undo took away.
func TestRedoInTheWorktreeThatLaterHasTheBranchOfUndoBranch(t *testing.T) {
	t.Parallel()
	g := crashRepoUndoneElsewhere(t)
	work, tip := g.work, strings.TrimSpace(g.tip)
	wt := filepath.Join(t.TempDir(), "wt")
	g.Git("worktree", "add", "-q", wt, work)
	out, err := autocoder(t, g.Dir, nil, "redo", "--branch", work)
	if got := strings.TrimSpace(g.Git("rev-parse", work)); got != tip {
		t.Fatalf("redo --branch did not put back the step undo --branch took away (%v):\n%s", err, out)
	}
}

// A stack that an autocoder which kept it in the linked worktree's own
// folder wrote is still read there by redo, and a new apply empties it.
func TestRedoReadsAStackKeptInTheLinkedWorktreesOwnFolder(t *testing.T) {
	t.Parallel()
	g := crashRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	g.Git("worktree", "add", "-q", "-b", "autocoder/linked", wt)
	plan := filepath.Join(t.TempDir(), "plan.md")
	os.WriteFile(plan, []byte(crashPlan), 0o666)
	if out, err := autocoder(t, wt, nil, "apply", plan); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	rev := func() string { return strings.TrimSpace(g.Git("rev-parse", "autocoder/linked")) }
	tip := rev()
	legacy := func() {
		t.Helper()
		common := filepath.Join(g.Dir, ".git", "autocoder", "redo", "autocoder%linked")
		own := filepath.Join(g.Dir, ".git", "worktrees", "wt", "autocoder", "redo", "autocoder%linked")
		os.MkdirAll(filepath.Dir(own), 0o777)
		if err := os.Rename(common, own); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := autocoder(t, wt, nil, "undo"); err != nil {
		t.Fatalf("undo: %v\n%s", err, out)
	}
	legacy()
	if out, err := autocoder(t, wt, nil, "redo"); err != nil || rev() != tip {
		t.Fatalf("redo did not put back the step of the stack in the worktree's own folder (%v):\n%s", err, out)
	}
	if out, err := autocoder(t, wt, nil, "undo"); err != nil {
		t.Fatalf("undo: %v\n%s", err, out)
	}
	legacy()
	parent := rev()
	x := filepath.Join(t.TempDir(), "x.md")
	os.WriteFile(x, []byte("~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nx.txt\n~~~~~\n~~~~~text\nx\n~~~~~\n"), 0o666)
	if out, err := autocoder(t, wt, nil, "apply", x); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	g.Git("-C", wt, "reset", "-q", "--hard", parent)
	if out, err := autocoder(t, wt, nil, "redo"); err == nil || rev() == tip {
		t.Fatalf("redo put back the step the apply replaced (%v):\n%s", err, out)
	}
}
