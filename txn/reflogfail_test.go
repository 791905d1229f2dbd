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

// A step whose reflog line cannot be written (a full disk; here a folder
// of files where HEAD's reflog goes) fails before its commit point: the
// branch, both reflogs, the files and the index as they were, no journal
// left, and the failure is autocoder's (no path of the model's not
// found). With the line writable, the same step applies and git reads
// both reflogs.
func TestAStepWhoseReflogLineCannotBeWrittenChangesNothing(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"d/a.txt": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("s1", write("d/a.txt", "one\n")))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	branch := strings.TrimSpace(g.Git("symbolic-ref", "HEAD"))
	tip := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	headLog := filepath.Join(g.Dir, ".git", "logs", "HEAD")
	branchLog := filepath.Join(g.Dir, ".git", "logs", filepath.FromSlash(branch))
	headLogBytes, _ := os.ReadFile(headLog)
	branchLogBytes, _ := os.ReadFile(branchLog)
	if err := os.Rename(headLog, headLog+".aside"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(headLog, "x"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(headLog, "x", "f"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	before := g.Snapshot()
	e = open(t, g.Dir, txn.Options{})
	s := mkStep("s2", write("d/a.txt", "two\n"), write("d/n.txt", "new\n"))
	r := e.Apply(context.Background(), s)
	e.Close()
	if r.Status != step.StatusFailed || !strings.Contains(r.Error, "reflog of HEAD") || r.Reason == step.ReasonNotFound {
		t.Fatalf("status %s, reason %s: %s; want failed for HEAD's reflog", r.Status, r.Reason, r.Error)
	}
	g.AssertRestored(before)
	if got := strings.TrimSpace(g.Git("rev-parse", "HEAD")); got != tip {
		t.Fatalf("the branch moved to %s", got)
	}
	if b, _ := os.ReadFile(branchLog); string(b) != string(branchLogBytes) {
		t.Fatalf("the branch's reflog kept the line of a step that failed:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(g.Dir, ".git", "autocoder", "journal.json")); err == nil {
		t.Fatal("the journal is left")
	}
	os.RemoveAll(headLog)
	if err := os.Rename(headLog+".aside", headLog); err != nil {
		t.Fatal(err)
	}
	e = open(t, g.Dir, txn.Options{})
	mustApply(t, e, s)
	e.Close()
	if got := g.Git("reflog", "show", "--format=%gs", "-1", branch); !strings.Contains(got, "s2") {
		t.Fatalf("the branch's reflog: %q", got)
	}
	if b, _ := os.ReadFile(headLog); !strings.HasPrefix(string(b), string(headLogBytes)) || len(b) == len(headLogBytes) {
		t.Fatalf("HEAD's reflog:\n%s", b)
	}
	g.Fsck()
}
