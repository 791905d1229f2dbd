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

// The attribute rules an engine read go stale when a .gitattributes changes
// under it by other hands than a step's op: the user's between two answers
// of `autocoder run` (one Run each, on one engine), or a program's between
// two steps. Each step's blob must still be what git makes of the file:
// `git hash-object` reads the rules as they are now.
func TestAttributesChangedBetweenRunsOrByAProgramAreRead(t *testing.T) {
	crlf := "one\r\ntwo\r\n"
	judge := func(t *testing.T, g *gittest.Repo, path string) {
		t.Helper()
		want := strings.TrimSpace(g.Git("hash-object", "--", path))
		got := strings.TrimSpace(g.Git("rev-parse", "HEAD:"+path))
		if got != want {
			t.Fatalf("%s committed as %s (%q); git makes %s of it with the rules as they are", path, got, g.Git("cat-file", "-p", got), want)
		}
		if s := g.Git("ls-files", "--eol", "--", path); !strings.HasPrefix(s, "i/lf") {
			t.Fatalf("git ls-files --eol: %s", s)
		}
		g.Fsck()
	}
	t.Run("between runs", func(t *testing.T) {
		t.Parallel()
		g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
		e := open(t, g.Dir, txn.Options{})
		ctx := context.Background()
		// The first answer reads the rules (none).
		if rs := e.Run(ctx, []step.Item{{Step: mkStep("s1", write("a.txt", crlf))}}, txn.RunOptions{}); rs[0].Status != step.StatusApplied {
			t.Fatalf("s1: %s %s", rs[0].Status, rs[0].Error)
		}
		// The user asks git to normalize text files, then the next answer.
		g.Write(".gitattributes", "*.txt text\n")
		if rs := e.Run(ctx, []step.Item{{Step: mkStep("s2", write("b.txt", crlf))}}, txn.RunOptions{}); rs[0].Status != step.StatusApplied {
			t.Fatalf("s2: %s %s", rs[0].Status, rs[0].Error)
		}
		judge(t, g, "b.txt")
	})
	t.Run("after a program", func(t *testing.T) {
		t.Parallel()
		g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", ".gitattributes": "# none yet\n"})
		e := open(t, g.Dir, txn.Options{Programs: fakePrograms{allow: true, run: func(dir string, p step.Program) {
			os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt text\n"), 0o666)
		}}})
		s1 := mkStep("s1", write("a.txt", crlf))
		s1.Programs = []step.Program{{Name: "setup", Command: "make setup", Shell: true}}
		rs := e.Run(context.Background(), []step.Item{{Step: s1}, {Step: mkStep("s2", write("b.txt", crlf))}}, txn.RunOptions{})
		for _, r := range rs {
			if r.Status != step.StatusApplied {
				t.Fatalf("%s: %s %s", r.StepID, r.Status, r.Error)
			}
		}
		judge(t, g, "b.txt")
	})
}

// A submodule the user adds between two answers of `autocoder run` is seen
// by the next one, as by a session's next call
// (TestSessionReleasesTheRepositoryBetweenCalls): a write into it is
// refused by the path policy, and nothing changes.
func TestASubmoduleAddedBetweenRunsIsSeen(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	ctx := context.Background()
	if rs := e.Run(ctx, []step.Item{{Step: mkStep("s1", write("sub1/x", "x\n"))}}, txn.RunOptions{}); rs[0].Status != step.StatusApplied {
		t.Fatalf("s1: %s %s", rs[0].Status, rs[0].Error)
	}
	head := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	g.Git("update-index", "--add", "--cacheinfo", "160000,"+head+",sub")
	os.Mkdir(filepath.Join(g.Dir, "sub"), 0o777)
	before := g.Snapshot()
	rs := e.Run(ctx, []step.Item{{Step: mkStep("s2", write("sub/x", "x\n"))}}, txn.RunOptions{})
	if r := rs[0]; r.Status != step.StatusFailed || r.Class != step.ClassRefused || !strings.Contains(r.Error, "submodule") {
		t.Fatalf("a write into a submodule added between runs: %s %s (%s)", r.Status, r.Class, r.Error)
	}
	g.AssertUnchanged(before)
	if got := g.Git("status", "--porcelain"); got != "A  sub\n" {
		t.Fatalf("status:\n%s", got)
	}
	g.Fsck()
}
