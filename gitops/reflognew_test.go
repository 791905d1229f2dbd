package gitops_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops"
)

// A ref created with HEAD's reflog line that cannot be written (a full
// disk; here a folder where HEAD's reflog goes) is not created, and
// leaves no reflog: the ref's own line, appended first to a file the
// update created, was taken back to an empty file, with its folders, so
// that `git reflog exists` said yes for a branch that does not exist,
// and the file stood where a folder of refs' reflogs would go. Once
// HEAD's reflog can be written, git reads the one line.
func TestARefNotCreatedLeavesNoReflog(t *testing.T) {
	t.Parallel()
	g, r, own, head, who := refRepo(t)
	unblock := blockHEADLog(t, g)
	before := g.Snapshot()
	u := gitops.RefUpdate{Name: "refs/heads/autocoder/new", New: head, Message: "create", Who: who, AlsoLogHEAD: true}
	if err := r.UpdateRef(u, own); err == nil || !strings.Contains(err.Error(), "reflog of HEAD") {
		t.Fatalf("HEAD's reflog cannot be written: %v, want the update refused", err)
	}
	g.AssertUnchanged(before)
	for _, p := range []string{"refs/heads/autocoder", "logs/refs/heads/autocoder"} {
		if _, err := os.Lstat(filepath.Join(g.Dir, ".git", p)); err == nil {
			t.Errorf("%s is left", p)
		}
	}
	if out, err := g.GitErr("reflog", "exists", "refs/heads/autocoder/new"); err == nil {
		t.Errorf("git reflog exists: %q, want none", out)
	}
	unblock()
	if err := r.UpdateRef(u, own); err != nil {
		t.Fatal(err)
	}
	if got := g.Git("reflog", "show", "--format=%gs", "refs/heads/autocoder/new"); got != "create\n" {
		t.Fatalf("the ref's reflog: %q", got)
	}
	g.Fsck()
}
