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

// A step whose rollback failed, where the journal could not record the
// rollback (a full disk: AUTOCODER_TEST_FAIL_BACK) and the branch names
// the step's commit, is kept by the next command. Its result said
// "failed" (nothing of it remains) with every op "rolled back, not
// applied: ... taken back whole", and the model, told so, would send the
// step again onto a branch that has it. It is reported applied, with its
// commit, and an error that says the next command puts its files in
// place; a rollback the next command finishes is still reported failed.
func TestAStepTheNextCommandKeepsIsNotReportedRolledBack(t *testing.T) {
	gittest.Isolate(t)
	// first: the step makes the work branch and moves HEAD onto it.
	for _, kind := range []string{"first", "second"} {
		t.Run(kind, func(t *testing.T) { keptStep(t, kind == "first") })
	}
}

func keptStep(t *testing.T, first bool) {
	sawKept, sawBack := false, false
	for n := 1; ; n++ {
		if n > 100 {
			t.Fatal("the step never got past its last failure point")
		}
		t.Setenv("AUTOCODER_TEST_FAIL_FROM", "")
		t.Setenv("AUTOCODER_TEST_FAIL_BACK", "")
		g := gittest.NewWithCommit(t, map[string]string{"d/a.txt": "a\n"})
		if !first {
			e := open(t, g.Dir, txn.Options{})
			mustApply(t, e, mkStep("s1", write("d/a.txt", "one\n")))
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
		}
		before := g.Snapshot()
		t.Setenv("AUTOCODER_TEST_FAIL_FROM", fmt.Sprint(n))
		t.Setenv("AUTOCODER_TEST_FAIL_BACK", "1")
		e := open(t, g.Dir, txn.Options{})
		r := e.Apply(context.Background(), mkStep("s2", write("d/a.txt", "two\n"), write("d/n.txt", "new\n")))
		e.Close()
		t.Setenv("AUTOCODER_TEST_FAIL_FROM", "")
		t.Setenv("AUTOCODER_TEST_FAIL_BACK", "")
		if r.Status == step.StatusApplied && r.Error == "" {
			break // past the last failure point
		}
		branch := strings.TrimSpace(g.Git("for-each-ref", "--format=%(objectname)", "refs/heads/autocoder/"))
		kept := strings.Contains(r.Error, "keeps the step")
		if kept {
			sawKept = true
			if r.Status != step.StatusApplied || r.Commit != branch {
				t.Fatalf("point %d: the next command keeps the step, but it is reported %s (commit %q, the work branch %q): %s", n, r.Status, r.Commit, branch, r.Error)
			}
			for _, op := range r.Ops {
				if op.Status != step.StatusApplied {
					t.Fatalf("point %d: the next command keeps the step, but %s %s is reported %s: %s", n, op.Kind, op.Path, op.Status, op.Message)
				}
			}
		} else {
			if r.Status != step.StatusFailed {
				t.Fatalf("point %d: %s: %s", n, r.Status, r.Error)
			}
			sawBack = sawBack || strings.Contains(r.Error, "rolling back failed too")
		}
		t.Logf("point %d: %s", n, r.Error)
		open(t, g.Dir, txn.Options{}).Close() // the next command
		if _, serr := os.Stat(filepath.Join(g.Dir, ".git", "autocoder", "journal.json")); serr == nil {
			t.Fatalf("point %d: the journal is left after the next command", n)
		}
		if kept {
			if a, nf := g.MustRead("d/a.txt"), g.MustRead("d/n.txt"); a != "two\n" || nf != "new\n" {
				t.Fatalf("point %d: reported applied, but d/a.txt %q, d/n.txt %q", n, a, nf)
			}
			if got := strings.TrimSpace(g.Git("rev-parse", "HEAD")); got != r.Commit {
				t.Fatalf("point %d: reported applied as %s, but HEAD is %s", n, r.Commit, got)
			}
			if got := g.Status(); got != "" {
				t.Fatalf("point %d: git status:\n%s", n, got)
			}
		} else {
			g.AssertRestored(before)
		}
		g.Fsck()
	}
	if !sawKept || !sawBack {
		t.Fatalf("kept %v, taken back %v: a case this test is for was not reached", sawKept, sawBack)
	}
}

// The same for an undo: where its rollback failed and could not be
// recorded, and the branch is where the undo moves it, the next command
// finishes the undo. The error said "the branch names the step's
// commit, so the next autocoder command keeps the step", which reads as
// the step undone being kept; it names the undo, and the next command
// does what it says.
func TestAnUndoTheNextCommandFinishesSaysSo(t *testing.T) {
	gittest.Isolate(t)
	sawFinished := false
	for n := 1; ; n++ {
		if n > 100 {
			t.Fatal("the undo never got past its last failure point")
		}
		t.Setenv("AUTOCODER_TEST_FAIL_FROM", "")
		t.Setenv("AUTOCODER_TEST_FAIL_BACK", "")
		g := gittest.NewWithCommit(t, map[string]string{"d/a.txt": "a\n"})
		e := open(t, g.Dir, txn.Options{})
		mustApply(t, e, mkStep("s1", write("d/a.txt", "one\n")))
		s1 := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
		mustApply(t, e, mkStep("s2", write("d/a.txt", "two\n"), write("d/n.txt", "new\n")))
		s2 := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		before := g.Snapshot()
		t.Setenv("AUTOCODER_TEST_FAIL_FROM", fmt.Sprint(n))
		t.Setenv("AUTOCODER_TEST_FAIL_BACK", "1")
		e = open(t, g.Dir, txn.Options{})
		_, err := e.Undo(1)
		e.Close()
		t.Setenv("AUTOCODER_TEST_FAIL_FROM", "")
		t.Setenv("AUTOCODER_TEST_FAIL_BACK", "")
		if err == nil {
			break
		}
		moved := strings.TrimSpace(g.Git("rev-parse", "HEAD")) == s1
		failedToo := strings.Contains(err.Error(), "rolling back failed too")
		finished := failedToo && moved
		if failedToo && (strings.Contains(err.Error(), "finishes the undo of s2") != finished || strings.Contains(err.Error(), "keeps the step")) {
			t.Fatalf("point %d (branch moved: %v): %v", n, moved, err)
		}
		open(t, g.Dir, txn.Options{}).Close() // the next command
		if finished {
			sawFinished = true
			if got := strings.TrimSpace(g.Git("rev-parse", "HEAD")); got != s1 {
				t.Fatalf("point %d: said the undo is finished, but HEAD is %s (s2 %s)", n, got, s2)
			}
			_, nerr := os.Lstat(filepath.Join(g.Dir, "d", "n.txt"))
			if a := g.MustRead("d/a.txt"); a != "one\n" || nerr == nil {
				t.Fatalf("point %d: said the undo is finished, but d/a.txt %q, d/n.txt there: %v", n, a, nerr == nil)
			}
			if got := g.Status(); got != "" {
				t.Fatalf("point %d: git status:\n%s", n, got)
			}
		} else {
			g.AssertRestored(before)
		}
		g.Fsck()
	}
	if !sawFinished {
		t.Fatal("no rollback of the undo failed after the branch moved: the case this test is for was not reached")
	}
}
