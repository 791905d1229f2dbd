package txn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// The operations after a failing one, the programs of a failed step and
// everything of a skipped step are answered as not attempted, each saying
// why, so that the feedback accounts for every operation the model sent.
func TestNotAttempted(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	before := g.Snapshot()
	s1 := mkStep("s1", write("b", "b\n"), replace("a", "not there", "x"), write("c", "c\n"))
	s1.Programs = []step.Program{{Name: "test", Command: "true", Shell: true}}
	s2 := mkStep("s2", write("d", "d\n"))
	s2.Programs = []step.Program{{Command: "true", Shell: true}}
	rs := e.Run(context.Background(), []step.Item{{Step: s1}, {Step: s2}}, txn.RunOptions{})
	if len(rs) != 2 || rs[0].Status != step.StatusFailed || rs[1].Status != step.StatusSkipped {
		t.Fatalf("results %+v", rs)
	}
	g.AssertUnchanged(before)
	ops := rs[0].Ops
	if len(ops) != 3 || ops[1].Status != step.StatusFailed || ops[2].Status != step.StatusSkipped || ops[2].Path != "c" ||
		!strings.Contains(ops[2].Message, "not attempted: an earlier operation of this step failed") {
		t.Fatalf("failed step's ops %+v", ops)
	}
	if ps := rs[0].Programs; len(ps) != 1 || ps[0].Name != "test" || ps[0].Status != step.ProgramNotAttempted || ps[0].ReturnCode != -1 {
		t.Fatalf("failed step's programs %+v", ps)
	}
	if ops := rs[1].Ops; len(ops) != 1 || ops[0].Status != step.StatusSkipped || ops[0].Path != "d" ||
		!strings.Contains(ops[0].Message, "not attempted: an earlier step failed") {
		t.Fatalf("skipped step's ops %+v", ops)
	}
	if ps := rs[1].Programs; len(ps) != 1 || ps[0].Name != "program-1" || ps[0].Status != step.ProgramNotAttempted {
		t.Fatalf("skipped step's programs %+v", ps)
	}
	// Not attempted is no program trouble: the exit code is the failed step's.
	if p := step.ProgramTrouble(rs); p != nil {
		t.Fatalf("ProgramTrouble %+v", p)
	}
}
