package txn_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/txn"
)

// An undo whose redo stack cannot be written (a file stands where its
// folder goes) is whole all the same: the redo stack is written past the
// commit point, so the undo stands, a warning says what is missing and how
// to get the step back, and redo has nothing to put back.
func TestAnUndoWhoseRedoStackCannotBeWrittenStandsAndSaysSo(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	var log bytes.Buffer
	e := open(t, g.Dir, txn.Options{Log: &log})
	mustApply(t, e, mkStep("1", write("b", "b\n")))
	step1 := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	if err := os.WriteFile(filepath.Join(g.Dir, ".git", "autocoder", "redo"), []byte("in the way\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	undone, err := e.Undo(1)
	if err != nil || len(undone) != 1 {
		t.Fatalf("undo: %v %+v", err, undone)
	}
	if _, ok := g.Read("b"); ok || strings.TrimSpace(g.Git("rev-parse", "HEAD")) == step1 {
		t.Fatal("the undo did not stand")
	}
	if got := g.Status(); got != "" {
		t.Fatalf("git status after the undo:\n%s", got)
	}
	if w := log.String(); !strings.Contains(w, "warning: the undo of step 1 is done, but the list of steps redo puts back could not be written") || !strings.Contains(w, "hint: ") {
		t.Fatalf("warning:\n%s", w)
	}
	if _, err := e.Redo(); err == nil {
		t.Fatal("redo put back a step it was never told of")
	}
	g.Fsck()
}
