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
