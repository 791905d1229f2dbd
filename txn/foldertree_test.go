package txn_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/txn"
)

// A step reads the tree of the folder it changes from the index where the
// index holds that folder as HEAD does, not from the object: inflating a
// large folder's tree was a tenth of a session's call. The object is made
// unreadable for the step, so that the step can only succeed without it;
// git judges the commit once it is back.
func TestAStepReadsItsFolderFromTheIndex(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"d/a.txt": "a\n", "d/b.txt": "b\n", "d/c.txt": "c\n", "top.txt": "t\n"})
	tree := strings.TrimSpace(g.Git("rev-parse", "HEAD:d"))
	obj := filepath.Join(g.Dir, ".git", "objects", tree[:2], tree[2:])
	kept, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(obj, 0o644)
	if err := os.WriteFile(obj, []byte("not a zlib stream"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := open(t, g.Dir, txn.Options{})
	r := e.Apply(t.Context(), mkStep("s1", write("d/a.txt", "A\n")))
	if err := os.WriteFile(obj, kept, 0o444); err != nil {
		t.Fatal(err)
	}
	if r.Error != "" {
		t.Fatalf("the step read the folder's tree object: %s %s", r.Status, r.Error)
	}
	if got := g.Git("ls-tree", "-r", "--name-only", "HEAD"); got != "d/a.txt\nd/b.txt\nd/c.txt\ntop.txt\n" {
		t.Fatalf("HEAD's files:\n%s", got)
	}
	if got := g.Git("show", "HEAD:d/a.txt", "HEAD:d/b.txt"); got != "A\nb\n" {
		t.Fatalf("HEAD's d/a.txt and d/b.txt: %q", got)
	}
	if st := g.Git("status", "--porcelain"); st != "" {
		t.Fatalf("git status:\n%s", st)
	}
	g.Fsck()
}

// Where the user staged work in the folder a step changes, the index no
// longer lists HEAD's tree of it: the step's commit holds HEAD's version
// of the staged file, and the staged version stays staged, as it did when
// the folder was always read from its tree.
func TestAStepBesideStagedWorkInItsFolderCommitsHEADsFiles(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"d/a.txt": "a\n", "d/b.txt": "b\n"})
	g.Write("d/b.txt", "staged\n")
	g.Git("add", "d/b.txt")
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("s1", write("d/a.txt", "A\n")))
	if got := g.Git("show", "HEAD:d/a.txt", "HEAD:d/b.txt"); got != "A\nb\n" {
		t.Fatalf("HEAD's d/a.txt and d/b.txt: %q", got)
	}
	if got := g.Git("diff", "--name-only", "HEAD~1", "HEAD"); got != "d/a.txt\n" {
		t.Fatalf("the step's commit changes:\n%s", got)
	}
	if got := g.Git("status", "--porcelain"); got != "M  d/b.txt\n" {
		t.Fatalf("git status:\n%s", got)
	}
	g.Fsck()
}
