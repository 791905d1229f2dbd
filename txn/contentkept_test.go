package txn_test

// Content is kept or refused, never altered: permission bits survive an
// edit and its undo, and max_file_bytes holds for what a step writes.

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

func TestEditKeepsPermissionBits(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"secret.txt": "a\n", "run.sh": "echo a\n"})
	os.Chmod(filepath.Join(g.Dir, "secret.txt"), 0o600)
	os.Chmod(filepath.Join(g.Dir, "run.sh"), 0o700)
	g.Git("add", "-A")
	g.Git("commit", "-qm", "modes")
	e := open(t, g.Dir, txn.Options{})
	perm := func(p string) os.FileMode {
		fi, err := os.Stat(filepath.Join(g.Dir, p))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	mustApply(t, e, mkStep("edit", replace("secret.txt", "a", "b"), replace("run.sh", "echo a", "echo b"), write("secret.txt.new", "n\n")))
	if p := perm("secret.txt"); p != 0o600 {
		t.Errorf("secret.txt is %o after the edit, want 600", p)
	}
	if p := perm("run.sh"); p != 0o700 {
		t.Errorf("run.sh is %o after the edit, want 700", p)
	}
	if _, err := e.Undo(1); err != nil {
		t.Fatal(err)
	}
	if p := perm("secret.txt"); p != 0o600 {
		t.Errorf("secret.txt is %o after undo, want 600", p)
	}
	if p := perm("run.sh"); p != 0o700 {
		t.Errorf("run.sh is %o after undo, want 700", p)
	}
	if _, err := e.Redo(); err != nil {
		t.Fatal(err)
	}
	if p := perm("secret.txt"); p != 0o600 {
		t.Errorf("secret.txt is %o after redo, want 600", p)
	}
	g.AssertClean()
}

func TestMaxFileBytesHoldsForWrites(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	e := open(t, g.Dir, txn.Options{MaxFileBytes: 1000})
	big := strings.Repeat("x", 1001)
	for _, op := range []step.Op{
		write("big.txt", big),
		{Kind: step.OpAppend, Path: "a.txt", Content: []byte(big)},
		replace("a.txt", "a", big),
	} {
		before := g.Snapshot()
		r := e.Apply(context.Background(), mkStep("big", op))
		if r.Class != step.ClassRefused || !strings.Contains(r.Error, "max_file_bytes") && !strings.Contains(r.Error, "over the limit") {
			t.Errorf("%s of %d bytes: class %s error %q; want refused (4) naming the limit", op.Kind, len(big), r.Class, r.Error)
		}
		g.AssertUnchanged(before)
	}
	mustApply(t, e, mkStep("fits", write("ok.txt", strings.Repeat("x", 1000))))
}
