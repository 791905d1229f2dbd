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
	if out, err := autocoder(t, g.Dir, nil, "undo", "--branch", work); err != nil {
		t.Fatalf("undo --branch: %v\n%s", err, out)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	g.Git("worktree", "add", "-q", wt, work)
	out, err := autocoder(t, g.Dir, nil, "redo", "--branch", work)
	if got := strings.TrimSpace(g.Git("rev-parse", work)); got != tip {
		t.Fatalf("redo --branch did not put back the step undo --branch took away (%v):\n%s", err, out)
	}
}
