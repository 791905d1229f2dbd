package gitops_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// A ref's reflog lines are written before it moves, as git writes them: a
// line that cannot be written (a full disk; here a folder where HEAD's
// reflog goes) fails the update with the ref, its reflog and HEAD's as
// they were, and no lock left. The ref moved first, then the update
// failed: a step past its commit point was reported failed (on a full
// disk, with a rollback that could not be recorded, the next command then
// kept it). With the line written, the update goes through, and git reads
// both reflogs.
func TestARefMovesOnlyAfterItsReflogLines(t *testing.T) {
	t.Parallel()
	g, r, own, head, who := refRepo(t)
	if err := r.UpdateRef(gitops.RefUpdate{Name: "refs/heads/w", New: head, Message: "create", Who: who}, own); err != nil {
		t.Fatal(err)
	}
	g.Git("commit", "-q", "--allow-empty", "-m", "second")
	next := plumbing.NewHash(strings.TrimSpace(g.Git("rev-parse", "HEAD")))
	headLog := filepath.Join(g.Dir, ".git", "logs", "HEAD")
	headLogBytes, _ := os.ReadFile(headLog)
	refLogBytes, _ := os.ReadFile(filepath.Join(g.Dir, ".git", "logs", "refs", "heads", "w"))
	unblock := blockHEADLog(t, g)
	before := g.Snapshot()
	u := gitops.RefUpdate{Name: "refs/heads/w", Old: head, New: next, Message: "move", Who: who, AlsoLogHEAD: true}
	if err := r.UpdateRef(u, own); err == nil || !strings.Contains(err.Error(), "reflog of HEAD") {
		t.Fatalf("HEAD's reflog cannot be written: %v, want the update refused", err)
	}
	g.AssertUnchanged(before)
	if got := strings.TrimSpace(g.Git("rev-parse", "refs/heads/w")); got != head.String() {
		t.Fatalf("the ref moved to %s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(g.Dir, ".git", "logs", "refs", "heads", "w")); string(b) != string(refLogBytes) {
		t.Fatalf("the ref's reflog kept the line of a move that did not happen:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(g.Dir, ".git", "refs", "heads", "w.lock")); err == nil {
		t.Fatal("the ref's lock was left")
	}
	unblock()
	if err := r.UpdateRef(u, own); err != nil {
		t.Fatal(err)
	}
	if got := g.Git("reflog", "show", "--format=%gs", "refs/heads/w"); got != "move\ncreate\n" {
		t.Fatalf("the ref's reflog: %q", got)
	}
	if b, _ := os.ReadFile(headLog); !strings.HasPrefix(string(b), string(headLogBytes)) || !strings.HasSuffix(string(b), "\tmove\n") {
		t.Fatalf("HEAD's reflog:\n%s", b)
	}
	g.Fsck()
}

// refRepo is a repository of one commit (head), opened, with its private
// folder and an identity for reflog lines.
func refRepo(t *testing.T) (g *gittest.Repo, r *gitops.Repo, own *gitops.Private, head plumbing.Hash, who gitops.Signature) {
	t.Helper()
	g = gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	r = openRepo(t, g.Dir)
	head = plumbing.NewHash(strings.TrimSpace(g.Git("rev-parse", "HEAD")))
	own, err := r.Private()
	if err != nil {
		t.Fatal(err)
	}
	who, _ = gitops.ParseSignature("T <t@example.com> 1700000000 +0000")
	return g, r, own, head, who
}

// blockHEADLog puts a folder that holds a file (git refuses it too) where
// HEAD's reflog is, so that no line can be appended to it (as on a full
// disk), and returns what puts the reflog back.
func blockHEADLog(t *testing.T, g *gittest.Repo) (unblock func()) {
	t.Helper()
	headLog := filepath.Join(g.Dir, ".git", "logs", "HEAD")
	if err := os.Rename(headLog, headLog+".aside"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(headLog, "x"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(headLog, "x", "f"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	return func() {
		os.RemoveAll(headLog)
		if err := os.Rename(headLog+".aside", headLog); err != nil {
			t.Fatal(err)
		}
	}
}
