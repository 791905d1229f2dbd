package txn_test

import (
	"context"
	"errors"
	"github.com/autocoder/autocoder/step"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/txn"
)

// open opens an engine on dir, waiting for the lock as commands do
// (opts.LockWait, when zero: commandWait). An engine closed just before
// can still hold it for a moment: the lock is flock's, on the open file,
// and a process another test forks at that moment holds a copy of the
// descriptor until it execs ("holder unknown", TestALargeIndexIsWrittenSplit
// under a loaded disk).
func open(t *testing.T, dir string, opts txn.Options) *txn.Engine {
	t.Helper()
	if opts.LockWait == 0 {
		opts.LockWait = commandWait
	}
	repo, err := gitops.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := txn.Open(context.Background(), repo, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// commandWait is cmd/autocoder's commandLockWait.
const commandWait = 5 * time.Second

func write(path, content string) step.Op {
	return step.Op{Kind: step.OpWrite, Path: path, Content: []byte(content)}
}

func replace(path, old, new string) step.Op {
	return step.Op{Kind: step.OpReplace, Path: path, Edits: []step.Edit{{Old: old, New: new}}}
}

func mkStep(id string, ops ...step.Op) *step.Step {
	return &step.Step{ID: id, Reason: "do " + id, Dialect: "axon", Ops: ops}
}

func mustApply(t *testing.T, e *txn.Engine, s *step.Step) step.Result {
	t.Helper()
	r := e.Apply(context.Background(), s)
	if r.Status != step.StatusApplied {
		t.Fatalf("step %s: status %s: %s (hint: %s)", s.ID, r.Status, r.Error, r.Hint)
	}
	return r
}

func TestApplyCommitsOneStepOnANewWorkBranch(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\ntwo\n"})
	e := open(t, g.Dir, txn.Options{})
	r := mustApply(t, e, mkStep("s1", write("dir/new.txt", "hello\n"), replace("a.txt", "two", "deux")))

	if got := strings.TrimSpace(g.Git("symbolic-ref", "HEAD")); got != "refs/heads/autocoder/main" {
		t.Fatalf("HEAD = %s, want the new work branch", got)
	}
	if head := strings.TrimSpace(g.Git("rev-parse", "HEAD")); head != r.Commit {
		t.Fatalf("HEAD %s, result commit %s", head, r.Commit)
	}
	msg := g.Git("log", "-1", "--format=%B")
	if !strings.HasPrefix(msg, "Do s1\n") || !strings.Contains(msg, "\nAutocoder-Step: s1\n") {
		t.Fatalf("commit message:\n%s", msg)
	}
	if got := strings.TrimSpace(g.Git("log", "-1", "--format=%an <%ae>")); got != "Test User <test@example.com>" {
		t.Fatalf("author %q", got)
	}
	if got := g.Git("show", "--name-status", "--format=", "HEAD"); got != "M\ta.txt\nA\tdir/new.txt\n" {
		t.Fatalf("the commit changes:\n%s", got)
	}
	if g.MustRead("a.txt") != "one\ndeux\n" || g.MustRead("dir/new.txt") != "hello\n" {
		t.Fatal("worktree files are wrong")
	}
	if got := strings.TrimSpace(g.Git("rev-parse", "HEAD~1")); got != strings.TrimSpace(g.Git("rev-parse", "main")) {
		t.Fatal("the step's parent is not the commit it started from")
	}
	g.AssertClean()
	g.Fsck()
	if !strings.Contains(g.Git("reflog", "-1", "HEAD"), "Do s1") {
		t.Fatalf("HEAD reflog lacks the step: %s", g.Git("reflog", "HEAD"))
	}
	if !strings.Contains(g.Git("reflog", "autocoder/main"), "Do s1") {
		t.Fatal("branch reflog lacks the step")
	}
	// The next step continues the same branch.
	mustApply(t, e, mkStep("s2", write("b.txt", "b\n")))
	if n := strings.TrimSpace(g.Git("rev-list", "--count", "main..autocoder/main")); n != "2" {
		t.Fatalf("%s steps on the branch, want 2", n)
	}
	g.AssertClean()
	g.Fsck()
}

func TestApplyInARepositoryWithNoCommit(t *testing.T) {
	t.Parallel()
	g := gittest.New(t)
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("first", write("README.md", "# hi\n")))
	if got := strings.TrimSpace(g.Git("symbolic-ref", "HEAD")); got != "refs/heads/autocoder/main" {
		t.Fatalf("HEAD = %s", got)
	}
	if n := strings.TrimSpace(g.Git("rev-list", "--count", "HEAD")); n != "1" {
		t.Fatalf("%s commits", n)
	}
	g.AssertClean()
	g.Fsck()
}

func TestApplyFromDetachedHEAD(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	base := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	g.Git("checkout", "-q", "--detach")
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("s", write("b", "b\n")))
	want := "refs/heads/autocoder/detached-" + base[:8]
	if got := strings.TrimSpace(g.Git("symbolic-ref", "HEAD")); got != want {
		t.Fatalf("HEAD = %s, want %s", got, want)
	}
	g.AssertClean()
	g.Fsck()
}

func TestApplyInALinkedWorktree(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	wt := filepath.Join(t.TempDir(), "wt")
	g.Git("worktree", "add", "-q", wt, "-b", "feature")
	w := &gittest.Repo{T: t, Dir: wt}
	e := open(t, wt, txn.Options{})
	mustApply(t, e, mkStep("s", write("b", "b\n")))
	if got := strings.TrimSpace(w.Git("symbolic-ref", "HEAD")); got != "refs/heads/autocoder/feature" {
		t.Fatalf("worktree HEAD = %s", got)
	}
	if got := strings.TrimSpace(g.Git("symbolic-ref", "HEAD")); got != "refs/heads/main" {
		t.Fatalf("the main worktree's HEAD moved: %s", got)
	}
	w.AssertClean()
	g.AssertClean()
	g.Fsck()
}

func TestFailedStepLeavesNoTrace(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\n"})
	e := open(t, g.Dir, txn.Options{})
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("bad", write("new.txt", "x"), replace("a.txt", "not there", "y")))
	if r.Status != step.StatusFailed || r.Class != step.ClassStepFailed {
		t.Fatalf("status %s class %s", r.Status, r.Class)
	}
	if r.Hint == "" {
		t.Fatal("a failed match must carry a hint")
	}
	g.AssertUnchanged(before)
}

func TestUnchangedStepMakesNoCommit(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\n"})
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("s1", write("a.txt", "two\n")))
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("s1-again", write("a.txt", "two\n")))
	if r.Status != step.StatusUnchanged || r.Commit != "" {
		t.Fatalf("re-applying: status %s commit %q", r.Status, r.Commit)
	}
	g.AssertUnchanged(before)
}

func TestPathsOutsideTheRepositoryAreRefused(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	os.Symlink(t.TempDir(), filepath.Join(g.Dir, "out"))
	g.Git("add", "out")
	g.Git("commit", "-qm", "link")
	e := open(t, g.Dir, txn.Options{})
	for _, p := range []string{"../x", "/etc/passwd", ".git/config", "sub/.GIT/hooks/x", "out/escape.txt"} {
		before := g.Snapshot()
		r := e.Apply(context.Background(), mkStep("evil", write(p, "x")))
		if r.Status != step.StatusFailed || r.Class != step.ClassRefused {
			t.Fatalf("%s: status %s class %s (%s)", p, r.Status, r.Class, r.Error)
		}
		g.AssertUnchanged(before)
	}
	// An absolute path inside the repository is accepted.
	mustApply(t, e, mkStep("abs", write(filepath.Join(g.Dir, "in.txt"), "in\n")))
	if g.MustRead("in.txt") != "in\n" {
		t.Fatal("absolute path inside the repository not written")
	}
}

func TestUserWorkIsSacred(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"dirty.txt": "d\n", "staged.txt": "s\n", "both.txt": "b\n", "free.txt": "f\n"})
	g.Write("dirty.txt", "d changed\n")
	g.Write("staged.txt", "s changed\n")
	g.Git("add", "staged.txt")
	g.Write("both.txt", "b staged\n")
	g.Git("add", "both.txt")
	g.Write("both.txt", "b staged and more\n")
	g.Write("untracked.txt", "u\n")
	e := open(t, g.Dir, txn.Options{})

	for _, p := range []string{"dirty.txt", "staged.txt", "both.txt", "untracked.txt"} {
		before := g.Snapshot()
		r := e.Apply(context.Background(), mkStep("touch-"+p, write(p, "model\n")))
		if r.Status != step.StatusFailed || r.Class != step.ClassRefused || !strings.Contains(r.Error, p) {
			t.Fatalf("%s: status %s class %s error %q", p, r.Status, r.Class, r.Error)
		}
		g.AssertUnchanged(before)
	}
	statusBefore := g.Status()
	cachedBefore := g.Git("diff", "--cached")
	diffBefore := g.Git("diff")
	mustApply(t, e, mkStep("other", write("free.txt", "model\n")))
	if got := g.Git("show", "--name-only", "--format=", "HEAD"); got != "free.txt\n" {
		t.Fatalf("the commit holds more than the step's file:\n%s", got)
	}
	if g.Git("diff", "--cached") != cachedBefore || g.Git("diff") != diffBefore {
		t.Fatal("the user's staged or unstaged changes changed")
	}
	if g.Status() != statusBefore {
		t.Fatalf("status changed:\n%s\nto\n%s", statusBefore, g.Status())
	}
	if g.MustRead("untracked.txt") != "u\n" || g.MustRead("both.txt") != "b staged and more\n" {
		t.Fatal("user files changed")
	}
	g.Fsck()
}

func TestHeldLocksAreRefusedAndKept(t *testing.T) {
	gittest.Isolate(t)
	defer func(w time.Duration) { gitops.LockWait = w }(gitops.LockWait)
	gitops.LockWait = 100 * time.Millisecond // the refusal, not the wait, is tested here
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	// index.lock held by "git": refused before any write.
	lock := filepath.Join(g.Dir, ".git", "index.lock")
	os.WriteFile(lock, nil, 0o666)
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("s", write("b", "b\n")))
	if r.Status != step.StatusFailed || r.Class != step.ClassRefused {
		t.Fatalf("index.lock: status %s class %s", r.Status, r.Class)
	}
	g.AssertUnchanged(before)
	os.Remove(lock)

	// The branch's ref lock held: the files and the index are already
	// written when the ref write fails, so this exercises the rollback.
	mustApply(t, e, mkStep("s1", write("b", "b\n")))
	reflock := filepath.Join(g.Dir, ".git", "refs", "heads", "autocoder", "main.lock")
	os.WriteFile(reflock, nil, 0o666)
	before = g.Snapshot()
	r = e.Apply(context.Background(), mkStep("s2", write("c", "c\n"), replace("a", "a", "A")))
	if r.Status != step.StatusFailed || r.Class != step.ClassRefused {
		t.Fatalf("ref lock: status %s class %s (%s)", r.Status, r.Class, r.Error)
	}
	g.AssertUnchanged(before)
	if _, err := os.Stat(reflock); err != nil {
		t.Fatal("autocoder removed a lock it did not take")
	}
	os.Remove(reflock)
	g.AssertClean()
	g.Fsck()
}

func TestPreconditions(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	before := g.Snapshot()
	s := mkStep("c", write("b", "b\n"))
	s.Checks = []step.Check{{Kind: step.CheckFilesExist, Paths: []string{"a", "missing"}}}
	if r := e.Apply(context.Background(), s); r.Class != step.ClassPrecondition || !strings.Contains(r.Error, "missing") {
		t.Fatalf("files_exist: class %s %s", r.Class, r.Error)
	}
	s.Checks = []step.Check{{Kind: step.CheckCwdMatch, Want: g.Dir + "2"}}
	if r := e.Apply(context.Background(), s); r.Class != step.ClassPrecondition {
		t.Fatalf("cwd_match with a prefix path: class %s", r.Class)
	}
	op := write("a", "new\n")
	op.ExpectedSHA256 = strings.Repeat("0", 64)
	if r := e.Apply(context.Background(), mkStep("sha", op)); r.Class != step.ClassPrecondition {
		t.Fatalf("expectedSha256: class %s", r.Class)
	}
	g.AssertUnchanged(before)
	s.Checks = []step.Check{{Kind: step.CheckCwdMatch, Want: g.Dir}, {Kind: step.CheckFilesExist, Paths: []string{"a"}}}
	mustApply(t, e, s)
}

func TestEveryWriteOperation(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "mv.txt": "m\n", "gone.txt": "g\n", "d/x": "x\n", "d/y": "y\n", "run.sh": "echo\n"})
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("append", step.Op{Kind: step.OpAppend, Path: "a.txt", Content: []byte("b\n"), MustExist: true}))
	mustApply(t, e, mkStep("move", step.Op{Kind: step.OpMove, Path: "mv.txt", To: "moved/mv.txt"}))
	mustApply(t, e, mkStep("delete", step.Op{Kind: step.OpDelete, Path: "gone.txt"}))
	mustApply(t, e, mkStep("rmdir", step.Op{Kind: step.OpRmdir, Path: "d"}))
	mustApply(t, e, mkStep("chmod", step.Op{Kind: step.OpChmod, Path: "run.sh", Mode: "755"}))
	r := e.Apply(context.Background(), mkStep("mkdir", step.Op{Kind: step.OpMkdir, Path: "empty/dir", Parents: true}))
	if r.Status != step.StatusUnchanged || !strings.Contains(r.Ops[0].Message, "git does not record empty folders") {
		t.Fatalf("mkdir: %s %+v", r.Status, r.Ops)
	}
	if fi, err := os.Stat(filepath.Join(g.Dir, "empty", "dir")); err != nil || !fi.IsDir() {
		t.Fatal("mkdir made no folder")
	}
	os.RemoveAll(filepath.Join(g.Dir, "empty"))
	if g.MustRead("a.txt") != "a\nb\n" || g.MustRead("moved/mv.txt") != "m\n" {
		t.Fatal("append or move wrong")
	}
	for _, p := range []string{"mv.txt", "gone.txt", "d/x", "d"} {
		if _, err := os.Lstat(filepath.Join(g.Dir, p)); err == nil {
			t.Fatalf("%s still exists", p)
		}
	}
	if got := g.Git("ls-files", "-s", "run.sh"); !strings.HasPrefix(got, "100755 ") {
		t.Fatalf("chmod: %s", got)
	}
	if got := strings.TrimSpace(g.Git("rev-list", "--count", "main..HEAD")); got != "5" {
		t.Fatalf("%s commits, want 5", got)
	}
	g.AssertClean()
	g.Fsck()
	// Append to a missing file, move onto an existing file, rmdir with
	// untracked files: each fails and changes nothing.
	g.Write("moved/untracked", "u")
	before := g.Snapshot()
	for _, s := range []*step.Step{
		mkStep("x1", step.Op{Kind: step.OpAppend, Path: "nope", Content: []byte("x"), MustExist: true}),
		mkStep("x2", step.Op{Kind: step.OpMove, Path: "a.txt", To: "run.sh"}),
		mkStep("x3", step.Op{Kind: step.OpRmdir, Path: "moved"}),
		mkStep("x4", step.Op{Kind: step.OpDelete, Path: "nope"}),
	} {
		if r := e.Apply(context.Background(), s); r.Status != step.StatusFailed {
			t.Fatalf("%s: %s", s.ID, r.Status)
		}
		g.AssertUnchanged(before)
	}
}

func TestAtomicTakesBackEarlierSteps(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	before := g.Snapshot()
	items := []step.Item{
		{Step: mkStep("1", write("b", "b\n"))},
		{Step: mkStep("2", replace("a", "a", "A"))},
		{Step: mkStep("3", replace("a", "nope", "x"))},
		{Step: mkStep("4", write("c", "c\n"))},
	}
	rs := e.Run(context.Background(), items, txn.RunOptions{Atomic: true})
	want := []step.Status{step.StatusFailed, step.StatusFailed, step.StatusFailed, step.StatusSkipped}
	for i, r := range rs[:4] {
		if r.Status != want[i] {
			t.Fatalf("step %d: %s, want %s", i+1, r.Status, want[i])
		}
	}
	g.AssertRestored(before)
	if _, err := g.GitErr("rev-parse", "--verify", "-q", "refs/heads/autocoder/main"); err == nil {
		t.Fatal("the branch the run created is still there")
	}
	g.Fsck()

	// Without --atomic, the earlier steps stay.
	rs = e.Run(context.Background(), items, txn.RunOptions{})
	if rs[0].Status != step.StatusApplied || rs[1].Status != step.StatusApplied || rs[2].Status != step.StatusFailed || rs[3].Status != step.StatusSkipped {
		t.Fatalf("statuses %s %s %s %s", rs[0].Status, rs[1].Status, rs[2].Status, rs[3].Status)
	}
	g.AssertClean()
}

func TestDryRunChangesNothingAndShowsDiffs(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "one\ntwo\n"})
	e := open(t, g.Dir, txn.Options{})
	before := g.Snapshot()
	rs := e.Run(context.Background(), []step.Item{{Step: mkStep("1", replace("a", "two", "2"))}, {Step: mkStep("2", replace("a", "2", "zwei"))}}, txn.RunOptions{DryRun: true})
	if rs[0].Status != step.StatusPlanned || rs[1].Status != step.StatusPlanned {
		t.Fatalf("%s %s: %s", rs[0].Status, rs[1].Status, rs[1].Error)
	}
	if !strings.Contains(rs[0].Ops[0].Diff, "-two\n+2\n") || !strings.Contains(rs[1].Ops[0].Diff, "-2\n+zwei\n") {
		t.Fatalf("diffs:\n%s\n%s", rs[0].Ops[0].Diff, rs[1].Ops[0].Diff)
	}
	g.AssertUnchanged(before)
}

func TestUndoRedo(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n", "keep": "k\n"})
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("1", write("b", "b\n")))
	mustApply(t, e, mkStep("2", replace("a", "a", "A"), step.Op{Kind: step.OpDelete, Path: "b"}))
	g.Write("untracked", "u\n")
	g.Write("keep", "user edit\n")
	tip := strings.TrimSpace(g.Git("rev-parse", "HEAD"))

	undone, err := e.Undo(1)
	if err != nil || len(undone) != 1 || undone[0].StepID != "2" {
		t.Fatalf("undo: %v %+v", err, undone)
	}
	if g.MustRead("a") != "a\n" || g.MustRead("b") != "b\n" || g.MustRead("keep") != "user edit\n" || g.MustRead("untracked") != "u\n" {
		t.Fatal("undo restored the wrong files")
	}
	if got := g.Status(); got != " M keep\n?? untracked\n" {
		t.Fatalf("status after undo:\n%s", got)
	}
	if _, err := e.Redo(); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(g.Git("rev-parse", "HEAD")) != tip || g.MustRead("a") != "A\n" {
		t.Fatal("redo did not put the step back")
	}
	if _, ok := g.Read("b"); ok {
		t.Fatal("redo did not delete b again")
	}
	// Undo 2, then a new apply: nothing to redo.
	if _, err := e.Undo(2); err != nil {
		t.Fatal(err)
	}
	if _, ok := g.Read("b"); ok || g.MustRead("a") != "a\n" {
		t.Fatal("undo 2 left files of the steps")
	}
	mustApply(t, e, mkStep("3", write("c", "c\n")))
	before := g.Snapshot()
	_, err = e.Redo()
	var nothing *txn.NothingError
	if !errors.As(err, &nothing) {
		t.Fatalf("redo after a new apply: %v", err)
	}
	g.AssertUnchanged(before)
	// A file of the step changed since: undo refuses and changes nothing.
	g.Write("c", "user changed c\n")
	before = g.Snapshot()
	_, err = e.Undo(1)
	if step.ClassOf(err) != step.ClassRefused || step.HintOf(err) == "" {
		t.Fatalf("undo over a changed file: %v (class %s)", err, step.ClassOf(err))
	}
	g.AssertUnchanged(before)
	g.Fsck()
	if !strings.Contains(g.Git("reflog", "autocoder/main"), "autocoder undo") {
		t.Fatal("the reflog does not show the undo")
	}
}

func TestIdentityFromGitIncludesAndEnvironment(t *testing.T) {
	home := gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	// The identity lives in an included file; the author comes from the
	// environment.
	os.WriteFile(filepath.Join(home, "ident.inc"), []byte("[user]\n\tname = Included Name\n\temail = inc@example.com\n"), 0o666)
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[include]\n\tpath = ~/ident.inc\n"), 0o666)
	t.Setenv("GIT_AUTHOR_NAME", "Env Author")
	t.Setenv("GIT_AUTHOR_EMAIL", "env@example.com")
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("s", write("b", "b\n")))
	if got := strings.TrimSpace(g.Git("log", "-1", "--format=%an <%ae>|%cn <%ce>")); got != "Env Author <env@example.com>|Included Name <inc@example.com>" {
		t.Fatalf("identity %q", got)
	}
}

func TestNoIdentityIsAClearError(t *testing.T) {
	home := gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tuseConfigOnly = true\n"), 0o666)
	e := open(t, g.Dir, txn.Options{})
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("s", write("b", "b\n")))
	if r.Status != step.StatusFailed || !strings.Contains(r.Hint, "git config --global user.email") {
		t.Fatalf("status %s error %q hint %q", r.Status, r.Error, r.Hint)
	}
	g.AssertUnchanged(before)
}

func TestOneEngineAtATime(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	open(t, g.Dir, txn.Options{})
	repo, _ := gitops.Open(g.Dir)
	_, err := txn.Open(context.Background(), repo, txn.Options{})
	var busy *txn.BusyError
	if !errors.As(err, &busy) || !strings.Contains(err.Error(), "pid") || step.ClassOf(err) != step.ClassRefused {
		t.Fatalf("second engine: %v", err)
	}
}

// TestIndexChangedByGitBetweenSteps: the engine keeps the index it wrote in
// memory between steps; when git changes the index in between, the next step
// must see git's version, or the user's staged change would be lost.
func TestIndexChangedByGitBetweenSteps(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n", "user.txt": "u\n"})
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("1", write("b", "b\n")))
	g.Write("user.txt", "staged by the user\n")
	g.Git("add", "user.txt")
	mustApply(t, e, mkStep("2", write("c", "c\n")))
	if got := g.Status(); got != "M  user.txt\n" {
		t.Fatalf("status after the second step:\n%s", got)
	}
	if got := g.Git("diff", "--cached", "--name-only"); got != "user.txt\n" {
		t.Fatalf("staged: %q", got)
	}
	mustApply(t, e, mkStep("3", write("d", "d\n")))
	if got := g.Git("show", "--name-only", "--format=", "HEAD"); got != "d\n" {
		t.Fatalf("the user's staged file entered a commit:\n%s", got)
	}
	g.Fsck()
}

// TestRunKeepsTheIndexInMemoryBetweenSteps: inside Run the index is written
// once at the end; a later step must still see the entries earlier steps
// made (here: deleting the folder an earlier step filled), and after the run
// the index on disk is complete and unlocked.
func TestRunKeepsTheIndexInMemoryBetweenSteps(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	rs := e.Run(context.Background(), []step.Item{
		{Step: mkStep("1", write("d/x", "x\n"), write("d/y", "y\n"))},
		{Step: mkStep("2", step.Op{Kind: step.OpRmdir, Path: "d"})},
		{Step: mkStep("3", write("e", "e\n"), replace("a", "a", "A"))},
	}, txn.RunOptions{})
	for _, r := range rs {
		if r.Status != step.StatusApplied {
			t.Fatalf("step %s: %s %s", r.StepID, r.Status, r.Error)
		}
	}
	if _, err := os.Stat(filepath.Join(g.Dir, ".git", "index.lock")); err == nil {
		t.Fatal("index.lock is still held after the run")
	}
	if got := g.Git("ls-files"); got != "a\ne\n" {
		t.Fatalf("index after the run: %q", got)
	}
	g.AssertClean()
	g.Fsck()
}

// TestDryRunDiffsAreGitPatches has git judge --dry-run's diffs: a new
// file, a deleted one and an edit of a file without a final newline give
// per-file patches (unidiff.File) that git apply --check accepts, and that
// git apply turns into the files the step would write.
func TestDryRunDiffsAreGitPatches(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "one\ntwo", "gone": "bye\n"})
	e := open(t, g.Dir, txn.Options{})
	before := g.Snapshot()
	rs := e.Run(context.Background(), []step.Item{{Step: mkStep("1", write("new.txt", "fresh\n"), replace("a", "two", "2"),
		step.Op{Kind: step.OpDelete, Path: "gone"})}}, txn.RunOptions{DryRun: true})
	if rs[0].Status != step.StatusPlanned {
		t.Fatalf("%s: %s", rs[0].Status, rs[0].Error)
	}
	var patch strings.Builder
	for _, op := range rs[0].Ops {
		patch.WriteString(op.Diff)
	}
	for _, want := range []string{"new file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+fresh\n",
		"deleted file mode 100644\n--- a/gone\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
		"-two\n\\ No newline at end of file\n+2\n\\ No newline at end of file\n"} {
		if !strings.Contains(patch.String(), want) {
			t.Errorf("the dry run's patch lacks %q:\n%s", want, patch.String())
		}
	}
	pf := filepath.Join(t.TempDir(), "dry.patch")
	if err := os.WriteFile(pf, []byte(patch.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	g.Git("apply", "--check", "--index", pf)
	g.AssertUnchanged(before)
	g.Git("apply", pf)
	if g.MustRead("new.txt") != "fresh\n" || g.MustRead("a") != "one\n2" {
		t.Fatalf("git apply of the dry run's patch gave other files:\n%s", patch.String())
	}
	if _, ok := g.Read("gone"); ok {
		t.Fatal("git apply of the dry run's patch kept gone")
	}
}

// UndoOnCancel: a run whose context ends before it returns takes back the
// steps it applied (autocoder run's Ctrl-C: no half answer on the branch),
// while without the option the steps done before the cancel stay.
func TestUndoOnCancelTakesBackTheRun(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	before := g.Snapshot()
	items := []step.Item{
		{Step: mkStep("1", write("b", "b\n"))},
		{Step: mkStep("2", write("c", "c\n"))},
	}
	ctx, cancel := context.WithCancel(context.Background())
	rs := e.Run(ctx, items, txn.RunOptions{UndoOnCancel: true, OnResult: func(step.Result) { cancel() }})
	if rs[0].Status != step.StatusFailed || rs[1].Status != step.StatusFailed {
		t.Fatalf("statuses %s %s, want both failed", rs[0].Status, rs[1].Status)
	}
	if !strings.Contains(rs[0].Error, "interrupted") {
		t.Errorf("the applied step's error does not say why it was taken back: %q", rs[0].Error)
	}
	g.AssertRestored(before)
	g.Fsck()

	ctx, cancel = context.WithCancel(context.Background())
	rs = e.Run(ctx, items, txn.RunOptions{OnResult: func(step.Result) { cancel() }})
	if rs[0].Status != step.StatusApplied || rs[1].Status != step.StatusFailed {
		t.Fatalf("without UndoOnCancel: statuses %s %s", rs[0].Status, rs[1].Status)
	}
}
