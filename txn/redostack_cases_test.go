package txn_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/txn"
)

// An undo --branch of a work branch checked out nowhere (View: the ref
// alone moves) whose redo stack cannot be written stands, as one of the
// branch checked out here does: it must not report a failure for a move
// that was made, or the user, told the undo failed, runs it again and
// takes a second step away.
func TestAnUndoOfABranchCheckedOutNowhereWhoseRedoStackCannotBeWrittenStands(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	base := strings.TrimSpace(g.Git("symbolic-ref", "--short", "HEAD"))
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("1", write("b", "b\n")))
	mustApply(t, e, mkStep("2", write("c", "c\n")))
	work := strings.TrimSpace(g.Git("symbolic-ref", "--short", "HEAD"))
	step2 := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	e.Close()
	g.Git("switch", "-q", base)
	if err := os.WriteFile(filepath.Join(g.Dir, ".git", "autocoder", "redo"), []byte("in the way\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	e = open(t, g.Dir, txn.Options{Log: &log})
	if err := e.View(work); err != nil {
		t.Fatal(err)
	}
	undone, err := e.Undo(1)
	moved := strings.TrimSpace(g.Git("rev-parse", work)) != step2
	if err != nil {
		t.Fatalf("undo --branch %s reported %q, but the branch moved: %v", work, err, moved)
	}
	if len(undone) != 1 || !moved {
		t.Fatalf("undo: %+v, moved %v", undone, moved)
	}
	if w := log.String(); !strings.Contains(w, "could not be written") {
		t.Fatalf("no warning:\n%s", w)
	}
	g.Fsck()
}

// Steps on top of the redo stack that the branch has already (an undo
// --branch killed between writing its stack and moving its ref, a redo
// whose stack could not be written, a stack a recovery wrote twice) are
// not what redo puts back: it drops them and puts back the one below,
// rather than dropping the whole stack.
func TestRedoDropsStepsOnTopOfTheStackThatTheBranchHas(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("1", write("b", "b\n")))
	mustApply(t, e, mkStep("2", write("c", "c\n")))
	mustApply(t, e, mkStep("3", write("d", "d\n")))
	rev := func(r string) string { return strings.TrimSpace(g.Git("rev-parse", r)) }
	s1, s2, s3 := rev("HEAD~2"), rev("HEAD~1"), rev("HEAD")
	if _, err := e.Undo(1); err != nil {
		t.Fatal(err)
	}
	// As an undo of step 2 leaves it when killed after its stack was
	// written and before its ref moved: step 2 (and 1, for an undo 2) on
	// top, the branch still at step 2.
	stack := filepath.Join(g.Dir, ".git", "autocoder", "redo", strings.ReplaceAll(strings.TrimSpace(g.Git("symbolic-ref", "--short", "HEAD")), "/", "%"))
	b, err := os.ReadFile(stack)
	if err != nil || strings.TrimSpace(string(b)) != s3 {
		t.Fatalf("the stack after undo: %q %v", b, err)
	}
	if err := os.WriteFile(stack, []byte(s3+"\n"+s2+"\n"+s1+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	r, err := e.Redo()
	if err != nil {
		t.Fatalf("redo dropped step 3 with the steps the branch has: %v", err)
	}
	if r.StepID != "3" || rev("HEAD") != s3 {
		t.Fatalf("redo put back %+v, HEAD at %s", r, rev("HEAD"))
	}
	if _, err := os.Stat(stack); !os.IsNotExist(err) {
		t.Fatalf("the stack is left: %v", err)
	}
	g.Fsck()
}

// A redo whose stack cannot be written stands with a warning, and the
// stack is what it was: the step it put back still on top. The next redo
// must put back the step below it, not drop every step left because the
// top one is on the branch. (The stack file is made immutable, which
// only chattr and root can do; the test is skipped elsewhere.)
func TestARedoWhoseRedoStackCannotBeWrittenLeavesTheNextRedoItsStep(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	var log bytes.Buffer
	e := open(t, g.Dir, txn.Options{Log: &log})
	mustApply(t, e, mkStep("1", write("b", "b\n")))
	mustApply(t, e, mkStep("2", write("c", "c\n")))
	tip := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	if _, err := e.Undo(2); err != nil {
		t.Fatal(err)
	}
	stack := filepath.Join(g.Dir, ".git", "autocoder", "redo", strings.ReplaceAll(strings.TrimSpace(g.Git("symbolic-ref", "--short", "HEAD")), "/", "%"))
	if out, err := exec.Command("chattr", "+i", stack).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", stack).Run() })
	if r, err := e.Redo(); err != nil || r.StepID != "1" {
		t.Fatalf("first redo: %+v %v", r, err)
	}
	if !strings.Contains(log.String(), "could not be written") {
		t.Fatalf("no warning:\n%s", log.String())
	}
	r, err := e.Redo()
	if err != nil || r.StepID != "2" {
		t.Fatalf("the second redo did not put back step 2: %+v %v", r, err)
	}
	if got := strings.TrimSpace(g.Git("rev-parse", "HEAD")); got != tip {
		t.Fatalf("HEAD at %s, not the tip %s", got, tip)
	}
	g.Fsck()
}

// Two work branches whose names differ only in '/' against '%' (made from
// feat/x and feat%x, both valid branch names) have one redo stack file
// each: the undo of one must not be put back on the other by redo, nor be
// dropped from its own stack by an apply on the other.
func TestRedoStacksOfBranchesNamedWithSlashAndPercentAreApart(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	g.Git("branch", "feat/x")
	g.Git("branch", "feat%x")
	g.Git("switch", "-q", "feat/x")
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("s1", write("b", "b\n")))
	slash := strings.TrimSpace(g.Git("symbolic-ref", "--short", "HEAD"))
	s1 := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	if _, err := e.Undo(1); err != nil {
		t.Fatal(err)
	}
	e.Close()
	g.Git("switch", "-q", "feat%x")
	e = open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("t1", write("c", "c\n")))
	if _, err := e.Undo(1); err != nil {
		t.Fatal(err)
	}
	e.Close()
	g.Git("switch", "-q", slash)
	e = open(t, g.Dir, txn.Options{})
	r, err := e.Redo()
	if err != nil || r.StepID != "s1" {
		t.Fatalf("redo on %s: %+v %v (want step s1 back)", slash, r, err)
	}
	if got := strings.TrimSpace(g.Git("rev-parse", "HEAD")); got != s1 {
		t.Fatalf("HEAD at %s, want %s", got, s1)
	}
	g.Fsck()
}
