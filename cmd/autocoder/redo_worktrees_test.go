package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A redo stack belongs to its branch, not to the worktree that moved the
// branch: after `undo --branch` from the user's checkout (the branch
// checked out nowhere), then a new apply and an undo of it in a worktree
// that has the branch, and that worktree removed, `redo --branch` from the
// checkout must not put back the step the new apply replaced ("redo puts
// back steps that autocoder undo took away, until a new apply").
func TestRedoAfterANewApplyInAnotherWorktreeDoesNotPutBackAReplacedStep(t *testing.T) {
	t.Parallel()
	g := crashRepoApplied(t)
	base, work, replaced := g.base, g.work, strings.TrimSpace(g.tip)
	g.Git("switch", "-q", base)
	if out, err := autocoder(t, g.Dir, nil, "undo", "--branch", work); err != nil {
		t.Fatalf("undo --branch: %v\n%s", err, out)
	}
	other := filepath.Join(t.TempDir(), "other")
	g.Git("worktree", "add", "-q", other, work)
	x := filepath.Join(t.TempDir(), "x.md")
	os.WriteFile(x, []byte("~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nx.txt\n~~~~~\n~~~~~text\nx\n~~~~~\n"), 0o666)
	if out, err := autocoder(t, other, nil, "apply", x); err != nil {
		t.Fatalf("apply in the other worktree: %v\n%s", err, out)
	}
	if out, err := autocoder(t, other, nil, "undo"); err != nil {
		t.Fatalf("undo in the other worktree: %v\n%s", err, out)
	}
	g.Git("worktree", "remove", "--force", other)
	out, err := autocoder(t, g.Dir, nil, "redo", "--branch", work)
	if got := strings.TrimSpace(g.Git("rev-parse", work)); got == replaced {
		t.Fatalf("redo --branch put back the step the apply in the other worktree replaced (%v):\n%s", err, out)
	}
	g.Fsck()
}
