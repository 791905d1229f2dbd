package txn_test

// Safety cases found by an adversarial review of the engine: each test
// failed before its fix.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/txn"
	"github.com/go-git/go-git/v5/plumbing"
)

// rmdir / delete recursive list the folder's tracked files from the index
// and never pass them through the path policy, so a configured deny pattern
// is bypassed: the denied file is deleted and committed.
func TestRmdirHonoursDenyPatterns(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"conf/secret.env": "KEY=1\n", "conf/app.ini": "a\n"})
	deny := func(rel string) (string, bool) {
		if strings.HasSuffix(rel, ".env") {
			return "*.env", true
		}
		return "", false
	}
	e := open(t, g.Dir, txn.Options{Deny: deny})
	// Sanity: the pattern denies the file itself.
	if r := e.Apply(context.Background(), mkStep("direct", step.Op{Kind: step.OpDelete, Path: "conf/secret.env"})); r.Class != step.ClassRefused {
		t.Fatalf("deleting the denied file directly: class %s (%s)", r.Class, r.Error)
	}
	before := g.Snapshot()
	for _, op := range []step.Op{
		{Kind: step.OpRmdir, Path: "conf"},
		{Kind: step.OpDelete, Path: "conf", Recursive: true},
	} {
		r := e.Apply(context.Background(), mkStep("rm-"+string(op.Kind), op))
		if r.Status != step.StatusFailed || r.Class != step.ClassRefused {
			t.Errorf("%s conf: status %s class %s: a folder holding a denied file must be refused", op.Kind, r.Status, r.Class)
			break
		}
		g.AssertUnchanged(before)
	}
	if _, ok := g.Read("conf/secret.env"); !ok {
		t.Fatal("the denied file conf/secret.env was deleted")
	}
}

// A failed step (here: the verify command fails) must leave no trace, but
// the rollback of a mkdir removes only the last folder it created, and the
// rollback of a created file prunes empty folders up to the root, including
// one that the user had before the step.
func TestFailedStepLeavesNoFolders(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	if err := os.Mkdir(filepath.Join(g.Dir, "userdir"), 0o777); err != nil {
		t.Fatal(err)
	}
	e := open(t, g.Dir, txn.Options{Verify: func(context.Context, string) (string, error) {
		return "tests fail", errors.New("exit status 1")
	}})
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("v", step.Op{Kind: step.OpMkdir, Path: "new/deep"}, write("userdir/f.txt", "f\n")))
	if r.Status != step.StatusFailed {
		t.Fatalf("status %s, want failed by verify", r.Status)
	}
	g.AssertRestored(before)
}

// A gitlink (a submodule added without .gitmodules, as `git add` of an
// embedded repository makes) is not seen by the path policy, which reads
// .gitmodules only: a write into it fails late in the tree edit with exit 1
// and a message about folders, instead of the policy's refusal (exit 4).
func TestWriteIntoGitlinkIsRefused(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	head := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	g.Git("update-index", "--add", "--cacheinfo", "160000,"+head+",sub")
	g.Git("commit", "-qm", "gitlink")
	os.Mkdir(filepath.Join(g.Dir, "sub"), 0o777)
	e := open(t, g.Dir, txn.Options{})
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("sub", write("sub/x.txt", "x\n")))
	if r.Status != step.StatusFailed || r.Class != step.ClassRefused || !strings.Contains(r.Error, "submodule") {
		t.Errorf("write into a gitlink: status %s class %s error %q; want refused (4) naming the submodule", r.Status, r.Class, r.Error)
	}
	g.AssertUnchanged(before)
}

// With AUTOCODER_TEST_FAIL_AT on the first point of the --atomic rollback,
// execute calls held.lock.Rollback() on a nil held (rollbackTo passes nil):
// the process panics instead of reporting the injected failure.
func TestInjectedFailureInAtomicRollbackDoesNotPanic(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	// Step 1 (one new file on a new branch) passes 5 points: journal, the
	// file, the index, HEAD, after the ref. The 6th is the rollback's first.
	t.Setenv("AUTOCODER_TEST_FAIL_AT", "6")
	e := open(t, g.Dir, txn.Options{})
	var rs []step.Result
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("Run panicked: %v", p)
			}
		}()
		rs = e.Run(context.Background(), []step.Item{
			{Step: mkStep("1", write("b", "b\n"))},
			{Step: mkStep("2", replace("a", "nope", "x"))},
		}, txn.RunOptions{Atomic: true})
	}()
	last := rs[len(rs)-1]
	if last.StepID != "atomic-rollback" || !strings.Contains(last.Error, "injected") {
		t.Fatalf("want the rollback's injected failure reported, got %+v", last)
	}
}

// After a crash past the commit point, the journal stays until the next
// command. If the user commits on the work branch first (git works fine
// meanwhile), recovery wants to move the ref back from a value it no longer
// has, fails with RefChangedError, and keeps the journal: every autocoder
// command fails from then on, and the hint says "run autocoder again".
func TestRecoveryAfterTheUserMovedTheBranch(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("1", write("b", "b\n")))
	tip := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	parent := strings.TrimSpace(g.Git("rev-parse", "HEAD~1"))
	blobB := strings.TrimSpace(g.Git("rev-parse", "HEAD:b"))
	e.Close()
	// The journal a run killed right after its ref write leaves behind.
	// (gitops.Hash has no text marshaller: the journal holds 20 numbers.)
	journal := fmt.Sprintf(`{"kind":"apply","step_id":"1","ref":"refs/heads/autocoder/main","old_ref":%s,"new_ref":%s,`+
		`"old_head":"ref: refs/heads/autocoder/main\n","new_head":"ref: refs/heads/autocoder/main\n",`+
		`"paths":[{"path":"b","old":{"exists":false,"hash":%s},"new":{"exists":true,"mode":33188,"hash":%s}}],`+
		`"message":"autocoder commit: do 1","head_from":%s,"head_to":%s}`,
		hashJSON(parent), hashJSON(tip), hashJSON(""), hashJSON(blobB), hashJSON(parent), hashJSON(parent))
	if err := os.WriteFile(filepath.Join(g.Dir, ".git", "autocoder", "journal.json"), []byte(journal), 0o666); err != nil {
		t.Fatal(err)
	}
	// The user goes on with git before running autocoder again.
	g.Write("c", "user commit\n")
	g.Git("add", "c")
	g.Git("commit", "-qm", "user commit")
	before := g.Snapshot()
	repo, err := gitops.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	e2, err := txn.Open(context.Background(), repo, txn.Options{LockWait: commandWait})
	if err != nil {
		t.Fatalf("every command is blocked after the user committed: %v (hint: %s)", err, step.HintOf(err))
	}
	e2.Close()
	g.AssertUnchanged(before)
}

// hashJSON is a hash as encoding/json writes a gitops.Hash; "" is zero.
func hashJSON(hex string) string {
	var h gitops.Hash
	if hex != "" {
		h = plumbing.NewHash(hex)
	}
	b, _ := json.Marshal(h)
	return string(b)
}

// The path policy compares components with ".git" by EqualFold only. git
// also treats NTFS and HFS+ spellings of .git as .git (".git.", ".git ",
// "git~1", ".g\u200cit"): core.protectNTFS (on by default) refuses to check
// such a commit out, and fsck --strict (and every host with
// transfer.fsckObjects) rejects the tree with hasDotgit.
func TestDotGitAliasesAreRefused(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	for _, p := range []string{".git./hooks/pre-commit", ".git /config", "GIT~1/config", ".g\u200cit/config"} {
		before := g.Snapshot()
		r := e.Apply(context.Background(), mkStep("alias", write(p, "x\n")))
		if r.Status != step.StatusFailed || r.Class != step.ClassRefused {
			out, _ := g.GitErr("fsck", "--strict", "--no-dangling")
			t.Errorf("%q: status %s class %s; git fsck --strict says:\n%s", p, r.Status, r.Class, out)
			continue
		}
		g.AssertUnchanged(before)
	}
}

// A failed --atomic run must leave no trace, but its first (rolled back)
// step cleared the branch's redo stack: a step undone before the run can no
// longer be redone.
func TestAtomicRollbackKeepsRedo(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("1", write("b", "b\n")))
	mustApply(t, e, mkStep("2", write("c", "c\n")))
	if _, err := e.Undo(1); err != nil {
		t.Fatal(err)
	}
	rs := e.Run(context.Background(), []step.Item{
		{Step: mkStep("3", write("d", "d\n"))},
		{Step: mkStep("4", replace("a", "nope", "x"))},
	}, txn.RunOptions{Atomic: true})
	if rs[0].Status != step.StatusFailed || rs[1].Status != step.StatusFailed {
		t.Fatalf("statuses %s %s", rs[0].Status, rs[1].Status)
	}
	if r, err := e.Redo(); err != nil || r.StepID != "2" {
		t.Fatalf("redo after a failed --atomic run: %v (%+v); want step 2 back", err, r)
	}
}

// HEAD.lock held by git when a step must create the work branch: moveTo
// takes the index and ref locks before the first write but HEAD.lock only
// after writing the files and the index, so this is not the clean refusal
// the comment promises: the files and the index are written, then rolled
// back (new mtimes, rewritten index), and a concurrent git sees them in
// between.
func TestHeldHEADLockIsACleanRefusal(t *testing.T) {
	gittest.Isolate(t)
	defer func(w time.Duration) { gitops.LockWait = w }(gitops.LockWait)
	gitops.LockWait = 100 * time.Millisecond // the refusal, not the wait, is tested here
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	lock := filepath.Join(g.Dir, ".git", "HEAD.lock")
	os.WriteFile(lock, nil, 0o666)
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("s", write("b", "b\n"), replace("a", "a", "A")))
	if r.Status != step.StatusFailed || r.Class != step.ClassRefused {
		t.Fatalf("HEAD.lock: status %s class %s (%s)", r.Status, r.Class, r.Error)
	}
	g.AssertUnchanged(before)
}

// The files autocoder keeps in its own folder (.git/autocoder) are written
// through their names, never through a symlink standing there, nor through
// a hard link (an archive of the repository, .git included, keeps them):
// one to a file of the user's would have it overwritten by the journal,
// the index debt or the redo stack, or emptied by the process lock. The
// link gives way to autocoder's file; the user's file is left as it was,
// and the steps work.
func TestOwnFilesAreNotWrittenThroughSymlinks(t *testing.T) {
	for _, c := range []struct {
		name string
		hard bool
	}{{"lock", false}, {"journal.json.tmp", false}, {"index-debt.json.tmp", false}, {"redo/autocoder%main", false},
		{"lock", true}, {"journal.json.tmp", true}, {"index-debt.json.tmp", true}, {"redo/autocoder%main", true}} {
		name := c.name
		kind := "symlink"
		if c.hard {
			kind = "hard link"
		}
		t.Run(kind+" "+name, func(t *testing.T) {
			gittest.Isolate(t)
			g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
			target := filepath.Join(t.TempDir(), "precious.txt") // on g.Dir's file system: a hard link needs it
			if err := os.WriteFile(target, []byte("the user's\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			plant := func() {
				link := filepath.Join(g.Dir, ".git", "autocoder", filepath.FromSlash(name))
				os.Remove(link)
				if err := os.MkdirAll(filepath.Dir(link), 0o777); err != nil {
					t.Fatal(err)
				}
				mk := os.Symlink
				if c.hard {
					mk = os.Link
				}
				if err := mk(target, link); err != nil {
					t.Fatal(err)
				}
			}
			plant()
			e := open(t, g.Dir, txn.Options{SplitIndex: true})
			mustApply(t, e, mkStep("s1", write("a.txt", "one\n")))
			mustApply(t, e, mkStep("s2", write("b.txt", "two\n")))
			plant() // an apply removes the redo stack: undo then writes it
			if _, err := e.Undo(1); err != nil {
				t.Fatal(err)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(target); err != nil || string(b) != "the user's\n" {
				t.Errorf("the symlink's target: %q (%v), want it unchanged", b, err)
			}
			if got := g.Git("status", "--porcelain"); got != "" {
				t.Errorf("status:\n%s", got)
			}
			if got := g.Git("log", "--format=%s", "-1"); got != "Do s1\n" {
				t.Errorf("HEAD is %q, want s1", got)
			}
			g.Fsck()
		})
	}
}

// A step that fails while writing its files takes back the files it
// reached and no other: the ones after it are as they were, not rewritten
// with their own content (a new file each, a new mtime, and on a full disk
// room that is not there, which kept the journal and made every later
// command finish a rollback of files the step never wrote).
func TestRollbackTouchesOnlyTheFilesItReached(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "d/c.txt": "c\n"})
	// Points: 1 after the journal, 2 after the first file.
	t.Setenv("AUTOCODER_TEST_FAIL_AT", "2")
	e := open(t, g.Dir, txn.Options{})
	stat := func(p string) os.FileInfo {
		fi, err := os.Lstat(filepath.Join(g.Dir, p))
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	untouched := map[string]os.FileInfo{"b.txt": stat("b.txt"), "d/c.txt": stat("d/c.txt")}
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("s1", write("a.txt", "one\n"), write("b.txt", "two\n"), write("d/c.txt", "three\n"), write("n/new.txt", "new\n")))
	if r.Status != step.StatusFailed || !strings.Contains(r.Error, "injected") {
		t.Fatalf("%s: %s, want the injected failure", r.Status, r.Error)
	}
	g.AssertRestored(before)
	for p, fi := range untouched {
		if !os.SameFile(fi, stat(p)) || !fi.ModTime().Equal(stat(p).ModTime()) {
			t.Errorf("%s was rewritten by the rollback although the step never reached it", p)
		}
	}
	if _, err := os.Stat(filepath.Join(g.Dir, "n")); err == nil {
		t.Error("the folder n of a file never written is left")
	}
	g.Fsck()
}
