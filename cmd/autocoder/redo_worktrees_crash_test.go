package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The other worktrees' redo stacks of a branch are emptied by a new apply
// on it (clearOtherRedo) only at the end of its run: an apply killed
// anywhere past the commit point of its first step, and finished (or its
// later step taken back) by the next command, must empty them too. Else,
// after `undo --branch` from the user's checkout, a killed apply in a
// worktree that has the branch, an undo of what it left there and that
// worktree removed, `redo --branch` from the checkout puts back the step
// the killed apply replaced.
func TestAnApplyKilledInAnotherWorktreeEmptiesTheRedoStackOfTheCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("kills apply at each point")
	}
	t.Parallel()
	two := "~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nx.txt\n~~~~~\n~~~~~text\nx\n~~~~~\n" +
		"~~~~~act\nwrite_file\n~~~~~\n~~~~~path\ny.txt\n~~~~~\n~~~~~text\ny\n~~~~~\n"
	tested := 0
	for n := 1; n < 80; n++ {
		g := crashRepoUndoneElsewhere(t)
		work, replaced := g.work, strings.TrimSpace(g.tip)
		parent := strings.TrimSpace(g.Git("rev-parse", work))
		other := filepath.Join(t.TempDir(), "other")
		g.Git("worktree", "add", "-q", other, work)
		x := filepath.Join(t.TempDir(), "x.md")
		os.WriteFile(x, []byte(two), 0o666)
		_, err := autocoder(t, other, []string{fmt.Sprintf("AUTOCODER_TEST_CRASH_AT=%d", n)}, "apply", x)
		if !killed(err) {
			break
		}
		if out, err := autocoder(t, other, nil, "log"); err != nil {
			t.Fatalf("point %d: log: %v\n%s", n, err, out)
		}
		steps := strings.TrimSpace(g.Git("rev-list", "--count", parent+".."+work))
		if steps == "0" {
			continue // the apply was taken back: the undone step is still redo's
		}
		tested++
		if out, err := autocoder(t, other, nil, "undo", steps); err != nil {
			t.Fatalf("point %d: undo %s in the other worktree: %v\n%s", n, steps, err, out)
		}
		g.Git("worktree", "remove", "--force", other)
		out, err := autocoder(t, g.Dir, nil, "redo", "--branch", work)
		if got := strings.TrimSpace(g.Git("rev-parse", work)); got == replaced {
			t.Errorf("point %d: redo --branch put back the step the killed apply in the other worktree replaced (%v):\n%s", n, err, out)
		}
	}
	if tested == 0 {
		t.Fatal("no kill left the apply standing")
	}
}

// An --atomic run whose last step fails takes its steps back, and the
// other worktrees' redo stacks of the branch, which its first step emptied,
// are as they were: redo --branch from the checkout puts back the step its
// undo --branch took away.
func TestAnAtomicRollbackInAnotherWorktreeKeepsTheRedoStackOfTheCheckout(t *testing.T) {
	t.Parallel()
	g := crashRepoUndoneElsewhere(t)
	work, tip := g.work, strings.TrimSpace(g.tip)
	other := filepath.Join(t.TempDir(), "other")
	g.Git("worktree", "add", "-q", other, work)
	x := filepath.Join(t.TempDir(), "x.md")
	os.WriteFile(x, []byte("~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nx.txt\n~~~~~\n~~~~~text\nx\n~~~~~\n"+
		"~~~~~act\nreplace\n~~~~~\n~~~~~path\nREADME.md\n~~~~~\n~~~~~markdown\nno such text\n~~~~~\n~~~~~markdown\nx\n~~~~~\n"), 0o666)
	if out, _ := autocoder(t, other, nil, "apply", "--atomic", x); !strings.Contains(out, "took this one back") {
		t.Fatalf("apply --atomic in the other worktree was not rolled back:\n%s", out)
	}
	g.Git("worktree", "remove", "--force", other)
	out, err := autocoder(t, g.Dir, nil, "redo", "--branch", work)
	if got := strings.TrimSpace(g.Git("rev-parse", work)); got != tip {
		t.Fatalf("redo --branch did not put back the step undo --branch took away (%v):\n%s", err, out)
	}
}
