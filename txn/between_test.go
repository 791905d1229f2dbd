package txn_test

import (
	"context"
	"os"
	"os/exec"
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
		committedAsGitMakes(t, g, path)
		if s := g.Git("ls-files", "--eol", "--", path); !strings.HasPrefix(s, "i/lf") {
			t.Fatalf("git ls-files --eol: %s", s)
		}
		g.Fsck()
	}
	t.Run("between runs", func(t *testing.T) {
		t.Parallel()
		g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
		e := open(t, g.Dir, txn.Options{})
		// The first answer reads the rules (none).
		mustRun(t, e, mkStep("s1", write("a.txt", crlf)))
		// The user asks git to normalize text files, then the next answer.
		g.Write(".gitattributes", "*.txt text\n")
		mustRun(t, e, mkStep("s2", write("b.txt", crlf)))
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
		mustRun(t, e, s1, mkStep("s2", write("b.txt", crlf)))
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
	mustRun(t, e, mkStep("s1", write("sub1/x", "x\n")))
	head := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	g.Git("update-index", "--add", "--cacheinfo", "160000,"+head+",sub")
	os.Mkdir(filepath.Join(g.Dir, "sub"), 0o777)
	before := g.Snapshot()
	rs := e.Run(ctx, []step.Item{{Step: mkStep("s2", write("sub/x", "x\n"))}}, txn.RunOptions{})
	refusedAsSubmodule(t, g, rs[0], before)
	if got := g.Status(); got != "A  sub\n" {
		t.Fatalf("status:\n%s", got)
	}
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
	e := session(t, g.Dir, txn.Options{})
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
			mustRun(t, run, mkStep("r", write("d", name+"\n")))
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
	e := session(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("s1", write("b", "b\n")))
	betweenCalls(t, e, func() {
		if err := os.Chmod(filepath.Join(g.Dir, "a.sh"), 0o755); err != nil {
			t.Fatal(err)
		}
		g.Git("config", "core.fileMode", "false")
		g.AssertClean()
	})
	mustApply(t, e, mkStep("s2", replace("a.sh", "echo a", "echo A")))
	if got := g.Git("ls-tree", "HEAD", "a.sh"); !strings.HasPrefix(got, "100644 ") {
		t.Fatalf("the step committed a.sh as %s; git ignores the executable bit now", got)
	}
	g.AssertClean()
	g.Fsck()
}

// session opens an engine as the MCP server keeps one, in its first call:
// released, then acquired (Acquire's Refresh has the configuration looked
// at once per call from then on).
func session(t *testing.T, dir string, opts txn.Options) *txn.Engine {
	t.Helper()
	e := open(t, dir, opts)
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

// gitIn runs git in dir for a fake program; the test fails on an error.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// A program of a step may add a submodule (git submodule add): the steps
// after it, in the same run, see it as a session's next call does, and a
// write into it is refused, nothing changed.
func TestASubmoduleAProgramAddedIsSeenByTheNextStep(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"run", "session"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
			head := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
			opts := txn.Options{Programs: fakePrograms{allow: true, run: func(dir string, p step.Program) {
				gitIn(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+head+",sub")
				os.Mkdir(filepath.Join(dir, "sub"), 0o777)
			}}}
			var e *txn.Engine
			if how == "run" {
				e = open(t, g.Dir, opts)
			} else {
				e = session(t, g.Dir, opts)
			}
			ctx := context.Background()
			// The engine reads the index's submodules (none) at its first step.
			mustRun(t, e, mkStep("s1", write("sub1/x", "x\n")))
			s2 := mkStep("s2", write("b", "b\n"))
			s2.Programs = []step.Program{{Name: "add", Command: "git submodule add", Shell: true}}
			rs := e.Run(ctx, []step.Item{{Step: s2}, {Step: mkStep("s3", write("sub/x", "x\n"))}}, txn.RunOptions{})
			if rs[0].Status != step.StatusApplied {
				t.Fatalf("s2: %s %s", rs[0].Status, rs[0].Error)
			}
			if r := rs[1]; r.Status != step.StatusFailed || r.Class != step.ClassRefused || !strings.Contains(r.Error, "submodule") {
				t.Fatalf("a write into the submodule a program added: %s %s (%s)", r.Status, r.Class, r.Error)
			}
			if _, err := os.Lstat(filepath.Join(g.Dir, "sub", "x")); err == nil {
				t.Fatal("sub/x was written into the submodule")
			}
			if got := g.Git("ls-tree", "-r", "HEAD", "sub"); got != "" {
				t.Fatalf("HEAD holds under sub:\n%s", got)
			}
			if got := g.Status(); got != "A  sub\n" {
				t.Fatalf("status:\n%s", got)
			}
			g.Fsck()
		})
	}
}

// A program of a step may change git's configuration (git config
// core.autocrlf input): in a session, which looks at the configuration
// once per call, the files the program wrote (committed by the same call,
// as an MCP call's one step commits them) and the steps after it in the
// same call still see the change, and each blob is what git makes of its
// file.
func TestConfigurationAProgramChangedCountsForTheNextStep(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	e := session(t, g.Dir, txn.Options{Programs: fakePrograms{allow: true, run: func(dir string, p step.Program) {
		gitIn(t, dir, "config", "core.autocrlf", "input")
		os.WriteFile(filepath.Join(dir, "gen.txt"), []byte("one\r\ntwo\r\n"), 0o666)
	}}})
	s1 := mkStep("s1", write("a.txt", "one\r\ntwo\r\n"))
	s1.Programs = []step.Program{{Name: "setup", Command: "git config core.autocrlf input", Shell: true}}
	mustRun(t, e, s1, mkStep("s2", write("b.txt", "one\r\ntwo\r\n")))
	for _, p := range []string{"gen.txt", "b.txt"} {
		committedAsGitMakes(t, g, p)
	}
	g.AssertClean()
	g.Fsck()
}

// core.splitIndex=false set between two calls of a session (as autocoder
// itself advises, for tools that cannot read a split index) counts at the
// next call's write, as it counts at git's next write: the index comes
// back whole, and git reads it without the shared index.
func TestSplitIndexTurnedOffBetweenCallsCountsAtTheNext(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := session(t, g.Dir, txn.Options{SplitIndex: true})
	mustApply(t, e, mkStep("s1", write("b", "b\n")))
	betweenCalls(t, e, func() {
		if got := sharedIndexes(t, g); len(got) != 1 {
			t.Fatalf("shared indexes after the first call: %v, want one", got)
		}
		g.Git("config", "core.splitIndex", "false")
	})
	mustApply(t, e, mkStep("s2", write("c", "c\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	ls := g.Git("ls-files", "--stage")
	for _, p := range sharedIndexes(t, g) {
		os.Remove(p)
	}
	if out, err := g.GitErr("ls-files", "--stage"); err != nil || out != ls {
		t.Fatalf("the index still needs its shared index after core.splitIndex=false: %v\n%s", err, out)
	}
	g.AssertClean()
	g.Fsck()
}

// A submodule that .gitmodules names is one too before the index has it
// (gitops.Repo.Gitlinks): the user who writes .gitmodules between two
// calls, or a step that writes it, has the next write into the submodule
// refused, as a new engine refuses it, and nothing changes.
func TestASubmoduleGitmodulesNamesIsSeenWhenItChanged(t *testing.T) {
	t.Parallel()
	mods := "[submodule \"lib\"]\n\tpath = vendor/lib\n\turl = https://example.com/lib.git\n"
	t.Run("between calls", func(t *testing.T) {
		t.Parallel()
		g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
		e := session(t, g.Dir, txn.Options{})
		mustApply(t, e, mkStep("s1", write("vendor/own/x", "x\n")))
		betweenCalls(t, e, func() { g.Write(".gitmodules", mods) })
		before := g.Snapshot()
		refusedAsSubmodule(t, g, e.Apply(context.Background(), mkStep("s2", write("vendor/lib/x", "x\n"))), before)
	})
	t.Run("written by a step", func(t *testing.T) {
		t.Parallel()
		g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
		e := open(t, g.Dir, txn.Options{})
		mustRun(t, e, mkStep("s1", write(".gitmodules", mods)))
		before := g.Snapshot()
		refusedAsSubmodule(t, g, e.Apply(context.Background(), mkStep("s2", write("vendor/lib/x", "x\n"))), before)
	})
}

// An index write that failed leaves the engine owing the entries of its
// run's paths (the index debt). What the user stages for such a path
// before the next run, or a session's next call, is the user's: the
// next run sets the owed entries that nobody changed to HEAD's, as a new
// engine's recovery does (settleDebt), and leaves the user's one staged.
func TestAnEntryTheUserStagedAfterAFailedIndexWriteStays(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	index := filepath.Join(g.Dir, ".git", "index")
	sabotage := true
	e := open(t, g.Dir, txn.Options{Verify: func(ctx context.Context, root string) (string, error) {
		if sabotage {
			// The index file is a folder when the run writes it: the
			// write fails (a full disk, as far as the engine can tell).
			sabotage = false
			if err := os.Rename(index, index+".saved"); err != nil {
				t.Error(err)
			}
			if err := os.MkdirAll(filepath.Join(index, "x"), 0o777); err != nil {
				t.Error(err)
			}
		}
		return "", nil
	}})
	ctx := context.Background()
	rs := e.Run(ctx, []step.Item{{Step: mkStep("s1", write("b", "b\n"), write("d", "d\n"))}}, txn.RunOptions{})
	if len(rs) != 2 || rs[0].Status != step.StatusApplied || rs[1].Status != step.StatusFailed {
		t.Fatalf("want s1 applied and the index write failed: %+v", rs)
	}
	if err := os.RemoveAll(index); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(index+".saved", index); err != nil {
		t.Fatal(err)
	}
	// The user stages their own b; d they leave as the failed write did.
	g.Write("b", "the user's b\n")
	g.Git("add", "b")
	staged := strings.TrimSpace(g.Git("rev-parse", ":b"))
	if rs := e.Run(ctx, []step.Item{{Step: mkStep("s2", write("c", "c\n"))}}, txn.RunOptions{}); rs[0].Status != step.StatusApplied || len(rs) != 1 {
		t.Fatalf("s2: %+v", rs)
	}
	if got := strings.TrimSpace(g.Git("rev-parse", ":b")); got != staged {
		t.Fatalf("the user's staged b (%s) became %s in the index", staged, got)
	}
	if got := g.Status(); got != "M  b\n" {
		t.Fatalf("status:\n%s", got)
	}
	g.Fsck()
}

// autocoder's folder under .git (its lock, journal, spare files and run
// records) removed between two calls of a session, as a user clearing
// old run records may remove it, is made again by the next call, as a
// new process makes it: the call is not refused until the server is
// restarted.
func TestASessionsCallAfterItsFolderWasRemovedGoesOn(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := session(t, g.Dir, txn.Options{})
	ctx := context.Background()
	mustApply(t, e, mkStep("s1", write("b", "b\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	txn.StopFilling(e)
	if err := os.RemoveAll(filepath.Join(g.Dir, ".git", "autocoder")); err != nil {
		t.Fatal(err)
	}
	if err := e.Acquire(ctx, commandWait); err != nil {
		t.Fatalf("the call after .git/autocoder was removed: %v", err)
	}
	mustApply(t, e, mkStep("s2", write("c", "c\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	if got := g.Git("log", "--format=%s", "main..autocoder/main"); got != "Do s2\nDo s1\n" {
		t.Fatalf("the work branch:\n%s", got)
	}
	g.AssertClean()
	g.Fsck()
}

// A repository format autocoder cannot write (here extensions.refStorage
// = reftable, which `git refs migrate` sets) set between two calls of a
// session is refused by the next call, as a new engine refuses it, and
// nothing changes; once the user takes it back, the calls go on.
func TestAFormatChangedBetweenCallsIsCheckedAgain(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := session(t, g.Dir, txn.Options{})
	ctx := context.Background()
	mustApply(t, e, mkStep("s1", write("b", "b\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	g.Git("config", "extensions.refStorage", "reftable")
	before := g.Snapshot()
	err := e.Acquire(ctx, commandWait)
	if err == nil {
		r := e.Apply(ctx, mkStep("s2", write("c", "c\n")))
		e.Release()
		t.Fatalf("the call after extensions.refStorage=reftable was set: acquired, the step %s %s", r.Status, r.Error)
	}
	if !strings.Contains(err.Error(), "refStorage") {
		t.Fatalf("the call after extensions.refStorage=reftable was set: %v", err)
	}
	g.AssertUnchanged(before)
	g.Git("config", "--unset", "extensions.refStorage")
	if err := e.Acquire(ctx, commandWait); err != nil {
		t.Fatalf("the call after the user took it back: %v", err)
	}
	mustApply(t, e, mkStep("s3", write("d", "d\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	g.AssertClean()
	g.Fsck()
}

// The same between two answers of `autocoder run` (two Runs of one
// engine, which holds its lock throughout): the second answer's step is
// refused, nothing written, once git would no longer read loose refs.
// Before, only a session's call checked the format again.
func TestAFormatChangedBetweenRunsIsCheckedAgain(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{SplitIndex: true})
	defer e.Close()
	mustRun(t, e, mkStep("s1", write("b", "b\n")))
	g.Git("config", "extensions.refStorage", "reftable")
	before := g.Snapshot()
	rs := e.Run(context.Background(), []step.Item{{Step: mkStep("s2", write("c", "c\n"))}, {Step: mkStep("s3", write("d", "d\n"))}}, txn.RunOptions{})
	if rs[0].Status != step.StatusFailed || !strings.Contains(rs[0].Error, "refStorage") || rs[1].Status != step.StatusSkipped {
		t.Fatalf("the answer after extensions.refStorage=reftable was set: %s %s; %s", rs[0].Status, rs[0].Error, rs[1].Status)
	}
	g.AssertUnchanged(before)
	g.Git("config", "--unset", "extensions.refStorage")
	mustRun(t, e, mkStep("s4", write("e", "e\n")))
	g.AssertClean()
	g.Fsck()
}

// The branch and parent of a session's commit are read at each call: the
// user who switched branches or committed between two calls has the next
// step committed where a new engine would commit it, never on the
// branch the last call was on. (A guard: it held before; the engine
// keeps no HEAD.)
func TestASessionCommitsOnTheBranchTheUserLeftItOn(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	rev := func(r string) string { return strings.TrimSpace(g.Git("rev-parse", r)) }
	e := session(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("s1", write("b", "b\n")))
	work := rev("autocoder/main")
	var m2 string
	betweenCalls(t, e, func() {
		g.Git("switch", "-q", "main")
		g.Write("m", "m\n")
		g.Git("add", "m")
		g.Git("commit", "-q", "-m", "m2")
		m2 = rev("HEAD")
	})
	mustApply(t, e, mkStep("s2", write("c", "c\n")))
	if got := g.Git("symbolic-ref", "--short", "HEAD"); got != "autocoder/main-2\n" {
		t.Fatalf("s2 after the user switched to main and committed: HEAD on %s", got)
	}
	if rev("HEAD^") != m2 || rev("autocoder/main") != work || rev("main") != m2 {
		t.Fatalf("s2's parent %s (want main's %s); autocoder/main %s (was %s)", rev("HEAD^"), m2, rev("autocoder/main"), work)
	}
	var mine string
	betweenCalls(t, e, func() {
		g.Git("switch", "-q", "autocoder/main")
		g.Write("u", "u\n")
		g.Git("add", "u")
		g.Git("commit", "-q", "-m", "the user's")
		mine = rev("HEAD")
	})
	mustApply(t, e, mkStep("s3", write("d", "d\n")))
	if got := g.Git("symbolic-ref", "--short", "HEAD"); got != "autocoder/main\n" || rev("HEAD^") != mine {
		t.Fatalf("s3 after the user committed on autocoder/main: HEAD on %s, parent %s (want %s)", got, rev("HEAD^"), mine)
	}
	if got := g.Git("log", "--format=%s", "autocoder/main-2", "^main"); got != "Do s2\n" {
		t.Fatalf("autocoder/main-2 past main:\n%s", got)
	}
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	g.AssertClean()
	g.Fsck()
}

// committedAsGitMakes fails t unless HEAD holds path as the blob that git
// hash-object makes of the work-tree file, with git's rules as they are
// now.
func committedAsGitMakes(t *testing.T, g *gittest.Repo, path string) {
	t.Helper()
	want := strings.TrimSpace(g.Git("hash-object", "--", path))
	if got := strings.TrimSpace(g.Git("rev-parse", "HEAD:"+path)); got != want {
		t.Fatalf("%s committed as %s (%q); git makes %s of it with its rules as they are now", path, got, g.Git("cat-file", "-p", got), want)
	}
}

// mustRun applies steps in one Run of e, as one answer of autocoder run,
// and fails t unless every one of them is applied.
func mustRun(t *testing.T, e *txn.Engine, steps ...*step.Step) []step.Result {
	t.Helper()
	var items []step.Item
	for _, s := range steps {
		items = append(items, step.Item{Step: s})
	}
	rs := e.Run(context.Background(), items, txn.RunOptions{})
	for _, r := range rs {
		if r.Status != step.StatusApplied {
			t.Fatalf("%s: %s %s (hint: %s)", r.StepID, r.Status, r.Error, r.Hint)
		}
	}
	return rs
}

// refusedAsSubmodule fails t unless r is a write refused for going into a
// submodule, with the repository as it was before (and git fsck silent).
func refusedAsSubmodule(t *testing.T, g *gittest.Repo, r step.Result, before gittest.Snapshot) {
	t.Helper()
	if r.Status != step.StatusFailed || r.Class != step.ClassRefused || !strings.Contains(r.Error, "submodule") {
		t.Fatalf("a write into a submodule: %s %s (%s)", r.Status, r.Class, r.Error)
	}
	g.AssertUnchanged(before)
	g.Fsck()
}
