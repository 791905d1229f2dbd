package txn_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// A tracked folder moves with everything in it (Axon move_file of a folder,
// 45 moves in the real history), as one commit git sees as renames.
func TestMoveTrackedFolder(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"acts/basic.py": "b\n", "acts/sub/git.py": "g\n", "keep.txt": "k\n", "actsx/z": "z\n"})
	if err := os.Chmod(filepath.Join(g.Dir, "acts", "sub", "git.py"), 0o755); err != nil {
		t.Fatal(err)
	}
	g.Git("add", "--chmod=+x", "acts/sub/git.py")
	g.Git("commit", "-qm", "exec")
	e := open(t, g.Dir, txn.Options{})
	r := mustApply(t, e, mkStep("mv", step.Op{Kind: step.OpMove, Path: "acts", To: "packages/runtime/acts"}))
	if !strings.Contains(r.Ops[0].Message, "2 file") {
		t.Errorf("message %q does not count the files", r.Ops[0].Message)
	}
	if got := g.Git("ls-files", "-s"); !strings.Contains(got, "100755") ||
		strings.Contains(got, "\tacts/") || !strings.Contains(got, "\tpackages/runtime/acts/sub/git.py") || !strings.Contains(got, "\tactsx/z") {
		t.Fatalf("index after the move:\n%s", got)
	}
	if got := g.Git("show", "--name-status", "--format=", "-M", "HEAD"); strings.Count(got, "R100") != 2 {
		t.Fatalf("git show does not see two renames:\n%s", got)
	}
	if g.MustRead("packages/runtime/acts/basic.py") != "b\n" {
		t.Fatal("content not moved")
	}
	if _, err := os.Lstat(filepath.Join(g.Dir, "acts")); err == nil {
		t.Fatal("the old folder is still there")
	}
	g.AssertClean()
	g.Fsck()

	// Refused, changing nothing: a folder holding an untracked file (undo
	// could not bring it back), a target that exists, a move into itself.
	g.Write("packages/runtime/acts/notes.txt", "mine")
	before := g.Snapshot()
	for _, op := range []step.Op{
		{Kind: step.OpMove, Path: "packages/runtime/acts", To: "acts"},
		{Kind: step.OpMove, Path: "actsx", To: "keep.txt"},
		{Kind: step.OpMove, Path: "actsx", To: "packages"},
		{Kind: step.OpMove, Path: "actsx", To: "actsx/inner"},
	} {
		r := e.Apply(context.Background(), mkStep("bad", op))
		if r.Status != step.StatusFailed || r.Hint == "" {
			t.Fatalf("move %s -> %s: %s %q", op.Path, op.To, r.Status, r.Error)
		}
		g.AssertUnchanged(before)
	}
}
