package txn_test

// Never destroy what autocoder did not create: temporary files have names
// of their own, created exclusively; a rollback that meets something in
// its way says what, and the next command finishes it.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// userLookalikes puts the user's own files and folders where the old fixed
// temporary names (.autocoder-tmp-<name>) were: a tracked file with
// uncommitted edits, an untracked folder holding a file, an untracked file.
func userLookalikes(t *testing.T) *gittest.Repo {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"README.md": "r\n", ".autocoder-tmp-README.md": "tracked\n", "dir/b.txt": "b\n"})
	g.Write(".autocoder-tmp-README.md", "tracked, with the user's uncommitted edit\n")
	g.Write(".autocoder-tmp-a.txt/keep.txt", "the user's untracked folder\n")
	g.Write("dir/.autocoder-tmp-b.txt", "the user's untracked file\n")
	return g
}

func assertLookalikes(t *testing.T, g *gittest.Repo) {
	t.Helper()
	for p, want := range map[string]string{
		".autocoder-tmp-README.md":      "tracked, with the user's uncommitted edit\n",
		".autocoder-tmp-a.txt/keep.txt": "the user's untracked folder\n",
		"dir/.autocoder-tmp-b.txt":      "the user's untracked file\n",
	} {
		if got, ok := g.Read(p); !ok || got != want {
			t.Errorf("the user's %s: %q (exists %v), want %q", p, got, ok, want)
		}
	}
}

func TestWritesNeverTouchFilesNamedLikeTemporaries(t *testing.T) {
	g := userLookalikes(t)
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("w", write("README.md", "new\n"), write("a.txt", "a\n"), write("dir/b.txt", "b2\n")))
	assertLookalikes(t, g)
	if g.MustRead("a.txt") != "a\n" || g.MustRead("dir/b.txt") != "b2\n" {
		t.Error("the step's files were not written")
	}
	// Undo and redo place files too.
	if _, err := e.Undo(1); err != nil {
		t.Fatal(err)
	}
	assertLookalikes(t, g)
	if _, err := e.Redo(); err != nil {
		t.Fatal(err)
	}
	assertLookalikes(t, g)
	for _, f := range leftovers(g.Dir) {
		t.Errorf("left behind: %s", f)
	}
}

func TestRollbackNeverTouchesFilesNamedLikeTemporaries(t *testing.T) {
	g := userLookalikes(t)
	e := open(t, g.Dir, txn.Options{Verify: func(context.Context, string) (string, error) { return "no", errors.New("exit status 1") }})
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("v", write("README.md", "new\n"), write("a.txt", "a\n"), write("dir/b.txt", "b2\n")))
	if r.Status != step.StatusFailed {
		t.Fatalf("status %s, want failed by verify", r.Status)
	}
	g.AssertRestored(before)
	assertLookalikes(t, g)
}

// leftovers lists the temporary files autocoder's own names would leave.
func leftovers(dir string) []string {
	var out []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasPrefix(fi.Name(), ".autocoder-tmp-") && !strings.Contains(p, ".autocoder-tmp-a.txt") &&
			fi.Name() != ".autocoder-tmp-README.md" && fi.Name() != ".autocoder-tmp-b.txt" {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// The verify command puts a folder holding a file where the step created a
// file: the rollback cannot delete it. It must say what is in the way, and
// the next command must really finish the rollback (not fail on it again),
// leaving the obstacle as it is.
func TestRollbackObstacleIsNamedAndTheNextCommandFinishes(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	before := g.Snapshot()
	repo, err := gitops.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := txn.Open(context.Background(), repo, txn.Options{Verify: func(_ context.Context, root string) (string, error) {
		os.Remove(filepath.Join(root, "new.txt"))
		os.MkdirAll(filepath.Join(root, "new.txt"), 0o777)
		os.WriteFile(filepath.Join(root, "new.txt", "user.txt"), []byte("user\n"), 0o666)
		return "no", errors.New("exit status 1")
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := e.Apply(context.Background(), mkStep("v", write("new.txt", "n\n"), replace("a.txt", "a", "A")))
	e.Close()
	if r.Status != step.StatusFailed || !strings.Contains(r.Error, "new.txt") || !strings.Contains(r.Error, "in the way") {
		t.Errorf("status %s error %q; want failed, saying new.txt is in the way", r.Status, r.Error)
	}
	// The next command finishes the rollback and keeps the obstacle.
	var log strings.Builder
	e2 := open(t, g.Dir, txn.Options{Log: &log})
	e2.Close()
	if _, err := os.Stat(filepath.Join(g.Dir, ".git", "autocoder", "journal.json")); err == nil {
		t.Errorf("the journal is still there after the next command; it said:\n%s", log.String())
	}
	if got, _ := g.Read("new.txt/user.txt"); got != "user\n" {
		t.Errorf("the folder in the way was touched: %q", got)
	}
	os.RemoveAll(filepath.Join(g.Dir, "new.txt"))
	g.AssertRestored(before)
	// And the one after that has nothing left to do.
	open(t, g.Dir, txn.Options{}).Close()
}
