package gitops_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops"
)

// An empty folder where a ref's reflog goes (left by a tool that removed
// the reflogs of refs inside the name, refs/heads/w/x, and not their
// folders) is removed and the line written, as git update-ref does
// (log_ref_setup): the line, now written before the ref moves, failed
// every update of the ref. A folder that still holds reflogs refuses the
// update, as git's does, with the ref and the folder as they were.
func TestAnEmptyFolderAtAReflogsNameIsNoReflog(t *testing.T) {
	t.Parallel()
	g, r, own, head, who := refRepo(t)
	logs := filepath.Join(g.Dir, ".git", "logs", "refs", "heads")
	if err := os.MkdirAll(filepath.Join(logs, "w", "x", "y"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateRef(gitops.RefUpdate{Name: "refs/heads/w", New: head, Message: "create", Who: who}, own); err != nil {
		t.Fatalf("an empty folder at the reflog's name: %v", err)
	}
	if got := g.Git("reflog", "show", "--format=%gs", "refs/heads/w"); got != "create\n" {
		t.Fatalf("the ref's reflog: %q", got)
	}

	held := filepath.Join(logs, "v", "x", "f")
	if err := os.MkdirAll(filepath.Dir(held), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(held, []byte("a reflog\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	before := g.Snapshot()
	err := r.UpdateRef(gitops.RefUpdate{Name: "refs/heads/v", New: head, Message: "create", Who: who}, own)
	if err == nil || !strings.Contains(err.Error(), "reflog of refs/heads/v") {
		t.Fatalf("a folder of reflogs at the reflog's name: %v, want the update refused", err)
	}
	g.AssertUnchanged(before)
	if b, err := os.ReadFile(held); err != nil || string(b) != "a reflog\n" {
		t.Fatalf("the reflog inside: %q, %v", b, err)
	}
	if _, ok, _ := r.ResolveRef("refs/heads/v"); ok {
		t.Fatal("the ref was created")
	}
	g.Fsck()
}
