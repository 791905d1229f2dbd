package txn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// An edit whose old and new texts are equal (DIALECTS.md, general rules) is
// a no-op: reported with its reason, no commit, and the run goes on; in a
// step with other edits, those apply.
func TestNoOpEditIsAWarning(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.py": "x = 1\ny = 2\n"})
	e := open(t, g.Dir, txn.Options{})
	noop := step.Edit{Old: "x = 1", New: "x = 1"}
	items := []step.Item{
		{Step: mkStep("only-noop", step.Op{Kind: step.OpReplace, Path: "a.py", Edits: []step.Edit{noop}})},
		{Step: mkStep("mixed", step.Op{Kind: step.OpReplace, Path: "a.py", Edits: []step.Edit{noop, {Old: "y = 2", New: "y = 3"}}})},
	}
	rs := e.Run(context.Background(), items, txn.RunOptions{})
	if len(rs) != 2 || rs[0].Status != step.StatusUnchanged || rs[0].Commit != "" {
		t.Fatalf("no-op step: %+v", rs)
	}
	op := rs[0].Ops[0]
	if !op.Replaces[0].NoOp || !strings.Contains(op.Message, "old and new texts are equal") {
		t.Errorf("no-op not reported: %+v", op)
	}
	if rs[1].Status != step.StatusApplied {
		t.Fatalf("the run did not go on: %s %s", rs[1].Status, rs[1].Error)
	}
	m := rs[1].Ops[0]
	if !m.Replaces[0].NoOp || m.Replaces[1].NoOp || m.Replaces[1].StartLine != 2 || !strings.Contains(m.Message, "1 of 2 edits were no-ops") {
		t.Errorf("mixed op: %+v", m)
	}
	if g.MustRead("a.py") != "x = 1\ny = 3\n" {
		t.Errorf("a.py = %q", g.MustRead("a.py"))
	}
	if got := strings.TrimSpace(g.Git("rev-list", "--count", "main..HEAD")); got != "1" {
		t.Errorf("%s commits, want 1", got)
	}
	// A failing edit after a no-op is numbered as the model numbered it.
	r := e.Apply(context.Background(), mkStep("bad", step.Op{Kind: step.OpReplace, Path: "a.py", Edits: []step.Edit{noop, {Old: "nope", New: "z"}}}))
	if r.Status != step.StatusFailed || !strings.Contains(r.Error, "edit 2:") {
		t.Errorf("bad edit: %s %s", r.Status, r.Error)
	}
	g.AssertClean()
	g.Fsck()
}
