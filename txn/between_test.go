package txn_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
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

// The identity git gives a commit is resolved again when the user changed
// it between two calls of a session or two answers of a run: a changed
// user.name is the next commit's author, and a session refused for want of
// an identity goes on once the user set one, without a restart.
func TestAnIdentityChangedBetweenCallsIsTheNextCommits(t *testing.T) {
	home := gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	ctx := context.Background()
	author := func() string { return strings.TrimSpace(g.Git("log", "-1", "--format=%an <%ae>")) }
	gitSays := func() string {
		id := strings.TrimSpace(g.Git("var", "GIT_AUTHOR_IDENT"))
		return id[:strings.Index(id, ">")+1]
	}
	e := session(t, g.Dir)
	mustApply(t, e, mkStep("s1", write("b", "b\n")))
	betweenCalls(t, e, func() { g.Git("config", "user.name", "Renamed User") })
	mustApply(t, e, mkStep("s2", write("c", "c\n")))
	if got, want := author(), gitSays(); got != want || !strings.HasPrefix(got, "Renamed User ") {
		t.Fatalf("after the rename, a call's commit is by %q; git var says %q", got, want)
	}
	betweenCalls(t, e, func() {
		// Across two Runs of one engine, as autocoder run has them.
		run := open(t, g.Dir, txn.Options{})
		for i, name := range []string{"Renamed User", "Run User"} {
			g.Git("config", "user.name", name)
			if rs := run.Run(ctx, []step.Item{{Step: mkStep("r", write("d", name+"\n"))}}, txn.RunOptions{}); rs[0].Status != step.StatusApplied {
				t.Fatalf("run %d: %s %s", i+1, rs[0].Status, rs[0].Error)
			}
			if got, want := author(), gitSays(); got != want || !strings.HasPrefix(got, name+" ") {
				t.Fatalf("run %d: the commit is by %q; git var says %q", i+1, got, want)
			}
		}
		if err := run.Close(); err != nil {
			t.Fatal(err)
		}
		// No identity at all.
		if err := os.WriteFile(filepath.Join(home, ".gitconfig"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		g.Git("config", "--unset", "user.name")
		g.Git("config", "user.useConfigOnly", "true")
	})
	// The call is refused and changes nothing; once the user sets an
	// identity, the next call of the same session commits.
	before := g.Snapshot()
	if r := e.Apply(ctx, mkStep("s4", write("e", "e\n"))); r.Status != step.StatusFailed || !strings.Contains(r.Error+r.Hint, "user.email") {
		t.Fatalf("without an identity: %s %s (hint: %s)", r.Status, r.Error, r.Hint)
	}
	g.AssertUnchanged(before)
	betweenCalls(t, e, func() {
		g.Git("config", "user.name", "Late User")
		g.Git("config", "user.email", "late@example.com")
	})
	mustApply(t, e, mkStep("s5", write("e", "e\n")))
	if got := author(); got != "Late User <late@example.com>" {
		t.Fatalf("after the user set an identity, the commit is by %q", got)
	}
	g.Fsck()
}

// core.fileMode set to false between two calls of a session counts at the
// next: the executable bit the work tree has and the index has not is
// ignored, as git ignores it, and the step keeps the file's mode.
func TestFileModeChangedBetweenCallsCountsAtTheNext(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("git ignores the executable bit on Windows whatever core.fileMode says")
	}
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.sh": "echo a\n"})
	e := session(t, g.Dir)
	mustApply(t, e, mkStep("s1", write("b", "b\n")))
	betweenCalls(t, e, func() {
		if err := os.Chmod(filepath.Join(g.Dir, "a.sh"), 0o755); err != nil {
			t.Fatal(err)
		}
		g.Git("config", "core.fileMode", "false")
		if got := g.Git("status", "--porcelain"); got != "" {
			t.Fatalf("git status with core.fileMode false:\n%s", got)
		}
	})
	mustApply(t, e, mkStep("s2", replace("a.sh", "echo a", "echo A")))
	if got := g.Git("ls-tree", "HEAD", "a.sh"); !strings.HasPrefix(got, "100644 ") {
		t.Fatalf("the step committed a.sh as %s; git ignores the executable bit now", got)
	}
	if got := g.Git("status", "--porcelain"); got != "" {
		t.Fatalf("git status:\n%s", got)
	}
	g.Fsck()
}

// session opens an engine as the MCP server keeps one, in its first call:
// released, then acquired (Acquire's Refresh has the configuration looked
// at once per call from then on).
func session(t *testing.T, dir string) *txn.Engine {
	t.Helper()
	e := open(t, dir, txn.Options{})
	betweenCalls(t, e, func() {})
	return e
}

// betweenCalls ends a session's call (Release), has change done, and
// starts the next call (Acquire).
func betweenCalls(t *testing.T, e *txn.Engine, change func()) {
	t.Helper()
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	change()
	if err := e.Acquire(context.Background(), commandWait); err != nil {
		t.Fatal(err)
	}
}
