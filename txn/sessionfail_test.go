package txn_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// A transaction of its own (a session's call, an undo, a redo) writes the
// index into index.lock before HEAD and the ref, and in place after them:
// a failure injected at any point of it, the points after that write
// included, leaves the repository as it was, the index too, with the
// user's staged work in the step's folder and elsewhere untouched, and the
// next engine finds nothing to recover.
func TestAFailureAtEveryPointOfATransactionOfItsOwnLeavesNothing(t *testing.T) {
	gittest.Isolate(t)
	for _, kind := range []string{"first", "second", "undo", "redo"} {
		t.Run(kind, func(t *testing.T) {
			for n := 1; ; n++ {
				if n > 100 {
					t.Fatal("the operation never got past its last failure point")
				}
				t.Setenv("AUTOCODER_TEST_FAIL_AT", "")
				g := gittest.NewWithCommit(t, map[string]string{"d/a.txt": "a\n", "d/s.txt": "s\n", "u.txt": "u\n"})
				g.Write("d/s.txt", "staged\n")
				g.Write("u.txt", "staged too\n")
				g.Git("add", "d/s.txt", "u.txt")
				opts := txn.Options{SplitIndex: true}
				if kind != "first" {
					e := open(t, g.Dir, opts)
					mustApply(t, e, mkStep("s1", write("d/a.txt", "one\n")))
					if kind == "redo" {
						if _, err := e.Undo(1); err != nil {
							t.Fatal(err)
						}
					}
					if err := e.Close(); err != nil {
						t.Fatal(err)
					}
				}
				before := g.Snapshot()
				t.Setenv("AUTOCODER_TEST_FAIL_AT", fmt.Sprint(n))
				e := open(t, g.Dir, opts)
				var err error
				switch kind {
				case "first", "second":
					r := e.Apply(context.Background(), mkStep("s2", write("d/a.txt", "two\n"), write("d/n.txt", "new\n")))
					if r.Status == step.StatusFailed {
						err = fmt.Errorf("%s", r.Error)
					}
				case "undo":
					_, err = e.Undo(1)
				case "redo":
					_, err = e.Redo()
				}
				if cerr := e.Close(); cerr != nil {
					t.Fatalf("point %d: close: %v", n, cerr)
				}
				if err == nil {
					if n < 4 {
						t.Fatalf("point %d: no failure injected", n)
					}
					if got := g.Status(); got != "M  d/s.txt\nM  u.txt\n" {
						t.Fatalf("after the %s, git status:\n%s", kind, got)
					}
					g.Fsck()
					break
				}
				if !strings.Contains(err.Error(), "injected") {
					t.Fatalf("point %d: %v", n, err)
				}
				g.AssertRestored(before)
				if _, serr := os.Stat(filepath.Join(g.Dir, ".git", "autocoder", "journal.json")); serr == nil {
					t.Fatalf("point %d: the journal is left", n)
				}
				t.Setenv("AUTOCODER_TEST_FAIL_AT", "")
				open(t, g.Dir, opts).Close()
				g.AssertRestored(before)
				g.Fsck()
			}
		})
	}
}

// A session's step that fails before its index is in place (here after
// its first file) has not changed the index file: its rollback leaves that
// file as it is, rather than write the whole index again. On a full disk,
// a likely reason for the failure, that write failed too, and the rollback
// then kept its journal and had every later command fail at the same write.
func TestARollbackBeforeTheIndexWriteLeavesTheIndexFile(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "u.txt": "u\n"})
	g.Write("u.txt", "staged\n")
	g.Git("add", "u.txt")
	before := g.Snapshot()
	ixPath := filepath.Join(g.Dir, ".git", "index")
	was, err := os.Stat(ixPath)
	if err != nil {
		t.Fatal(err)
	}
	// Points: 1 after the journal, 2 after the first file.
	t.Setenv("AUTOCODER_TEST_FAIL_AT", "2")
	e := open(t, g.Dir, txn.Options{SplitIndex: true})
	r := e.Apply(context.Background(), mkStep("s1", write("a.txt", "A\n"), write("b.txt", "B\n")))
	if r.Status != step.StatusFailed || !strings.Contains(r.Error, "injected") {
		t.Fatalf("%s: %s, want the injected failure", r.Status, r.Error)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	now, err := os.Stat(ixPath)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(was, now) {
		t.Error("the rollback wrote the index again, which the step never wrote")
	}
	g.AssertRestored(before)
	if got := g.Status(); got != "M  u.txt\n" {
		t.Fatalf("git status:\n%s", got)
	}
	g.Fsck()
}

// A session's step whose verify command fails is rolled back; when the
// index could not have been written at that moment either (its lock file
// taken away, as a full disk fails the write), the rollback, which has no
// index change to write, still ends whole: the step fails for its verify
// alone and leaves no journal for the next command to finish.
func TestAVerifyFailureOnAFullDiskRollsBackWhole(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	before := g.Snapshot()
	e := open(t, g.Dir, txn.Options{SplitIndex: true, Verify: func(_ context.Context, root string) (string, error) {
		os.Remove(filepath.Join(root, ".git", "index.lock"))
		return "FAIL: tests", fmt.Errorf("exit status 1")
	}})
	r := e.Apply(context.Background(), mkStep("s1", write("a.txt", "A\n")))
	if r.Status != step.StatusFailed || strings.Contains(r.Error, "rolling back failed") {
		t.Fatalf("%s: %s, want the verify failure alone", r.Status, r.Error)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(g.Dir, ".git", "autocoder", "journal.json")); err == nil {
		t.Fatal("the rollback kept its journal")
	}
	g.AssertRestored(before)
	g.Fsck()
}

// A step whose forward move fails, and whose rollback then fails too (here
// every point from the n-th on fails: AUTOCODER_TEST_FAIL_FROM), keeps its
// journal and says that the next command finishes the rollback. It must:
// the step was reported failed, so the next command takes it back, even
// where the forward move had already moved the branch (a failure after
// the commit point, the index's rename) and the ref alone would have
// recovery go forward and commit the failed step.
func TestAFailedRollbackIsFinishedByTheNextCommand(t *testing.T) {
	gittest.Isolate(t)
	sawAfterRef := false
	for n := 1; ; n++ {
		if n > 100 {
			t.Fatal("the step never got past its last failure point")
		}
		g, opts, before, head, r := secondStepFailingFrom(t, n, false)
		if r.Status != step.StatusFailed {
			if n < 4 {
				t.Fatalf("point %d: no failure injected", n)
			}
			break
		}
		if !strings.Contains(r.Error, "injected") {
			t.Fatalf("point %d: %s", n, r.Error)
		}
		if strings.Contains(r.Error, "rolling back failed too") {
			if !strings.Contains(r.Error, "the next autocoder command finishes the rollback") {
				t.Fatalf("point %d: %s", n, r.Error)
			}
			if now := strings.TrimSpace(g.Git("rev-parse", "HEAD")); now != head {
				sawAfterRef = true // the branch holds the failed step until then
			}
		}
		t.Logf("point %d: %s", n, r.Error)
		// The next command (any: here an engine opened and closed).
		open(t, g.Dir, opts).Close()
		g.AssertRestored(before)
		if _, serr := os.Stat(filepath.Join(g.Dir, ".git", "autocoder", "journal.json")); serr == nil {
			t.Fatalf("point %d: the journal is left after the next command", n)
		}
		if got := g.Status(); got != "M  u.txt\n" {
			t.Fatalf("point %d: git status:\n%s", n, got)
		}
		g.Fsck()
	}
	if !sawAfterRef {
		t.Fatal("no point failed after the branch moved: the case this test is for was not reached")
	}
}

// On a full disk the journal may not be able to record that a failed step
// goes back (AUTOCODER_TEST_FAIL_BACK), and then its rollback fails too.
// The next command goes by the branch, as after a kill: where the branch
// already names the step's commit, it keeps the step. The error said it
// would finish the rollback, and the model was told the step failed. It
// now says which the next command does, and the next command does that.
func TestAFailedRollbackThatCouldNotBeRecordedSaysWhatTheNextCommandDoes(t *testing.T) {
	gittest.Isolate(t)
	sawKept := false
	for n := 1; ; n++ {
		if n > 100 {
			t.Fatal("the step never got past its last failure point")
		}
		g, opts, before, head, r := secondStepFailingFrom(t, n, true)
		if r.Status == step.StatusApplied && r.Error == "" {
			break // a step the next command keeps is applied, with an error
		}
		moved := strings.TrimSpace(g.Git("rev-parse", "HEAD")) != head
		failedToo := strings.Contains(r.Error, "rolling back failed too")
		kept := failedToo && moved
		if failedToo && strings.Contains(r.Error, "keeps the step") != kept {
			t.Fatalf("point %d (branch moved: %v): %s", n, moved, r.Error)
		}
		t.Logf("point %d: %s", n, r.Error)
		open(t, g.Dir, opts).Close() // the next command
		if _, serr := os.Stat(filepath.Join(g.Dir, ".git", "autocoder", "journal.json")); serr == nil {
			t.Fatalf("point %d: the journal is left after the next command", n)
		}
		if kept {
			sawKept = true
			if a, nf := g.MustRead("d/a.txt"), g.MustRead("d/n.txt"); a != "two\n" || nf != "new\n" {
				t.Fatalf("point %d: said kept, but d/a.txt %q, d/n.txt %q", n, a, nf)
			}
			if got := g.Git("log", "-1", "--format=%s"); !strings.HasPrefix(got, "Do s2") {
				t.Fatalf("point %d: said kept, but HEAD is %q", n, got)
			}
		} else {
			g.AssertRestored(before)
		}
		if got := g.Status(); got != "M  u.txt\n" {
			t.Fatalf("point %d: git status:\n%s", n, got)
		}
		g.Fsck()
	}
	if !sawKept {
		t.Fatal("no rollback failed after the branch moved: the case this test is for was not reached")
	}
}

// secondStepFailingFrom makes a repository with a staged change of the
// user's (u.txt), applies a step s1, then a step s2 with every failure
// point from the n-th on failing (AUTOCODER_TEST_FAIL_FROM) and, with
// failBack, the journal's "back" too (AUTOCODER_TEST_FAIL_BACK). It
// returns the repository, the options its engines open with, the
// snapshot and HEAD before s2, and s2's result.
func secondStepFailingFrom(t *testing.T, n int, failBack bool) (g *gittest.Repo, opts txn.Options, before gittest.Snapshot, head string, r step.Result) {
	t.Helper()
	g = gittest.NewWithCommit(t, map[string]string{"d/a.txt": "a\n", "u.txt": "u\n"})
	g.Write("u.txt", "staged\n")
	g.Git("add", "u.txt")
	opts = txn.Options{SplitIndex: true}
	e := open(t, g.Dir, opts)
	mustApply(t, e, mkStep("s1", write("d/a.txt", "one\n")))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	before = g.Snapshot()
	head = strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	t.Setenv("AUTOCODER_TEST_FAIL_FROM", fmt.Sprint(n))
	if failBack {
		t.Setenv("AUTOCODER_TEST_FAIL_BACK", "1")
	}
	e = open(t, g.Dir, opts)
	r = e.Apply(context.Background(), mkStep("s2", write("d/a.txt", "two\n"), write("d/n.txt", "new\n")))
	e.Close()
	t.Setenv("AUTOCODER_TEST_FAIL_FROM", "")
	t.Setenv("AUTOCODER_TEST_FAIL_BACK", "")
	return g, opts, before, head, r
}
