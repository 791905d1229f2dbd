package txn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/protocol/mcp"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// A chmod whose mode is not octal is the op's usage error, with a hint, in
// the result and in the feedback, not an internal error; nothing changes.
func TestBadChmodModeIsAUsageErrorOfTheStep(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"tool.sh": "echo hi\n"})
	before := g.Snapshot()
	e := open(t, g.Dir, txn.Options{})
	s := &step.Step{ID: "ch", Dialect: mcp.Dialect, Reason: "chmod",
		Ops: []step.Op{{Kind: step.OpChmod, Path: "tool.sh", Mode: "9z9"}}}
	r := e.Apply(context.Background(), s)
	if r.Status != step.StatusFailed || r.Class != step.ClassUsage || r.Reason != step.ReasonInvalid {
		t.Fatalf("status %s, class %s, reason %q; want failed, usage, invalid (%s)", r.Status, r.Class, r.Reason, r.Error)
	}
	if !strings.Contains(r.Error, `"9z9"`) || !strings.Contains(r.Hint, "755") {
		t.Fatalf("error %q, hint %q: want the mode and an example of a good one", r.Error, r.Hint)
	}
	fb := string(mcp.Feedback([]step.Result{r}))
	if !strings.Contains(fb, `"appCode":"INVALID_INPUT"`) || !strings.Contains(fb, `"hint":"`) {
		t.Fatalf("feedback: want INVALID_INPUT with the hint:\n%s", fb)
	}
	g.AssertUnchanged(before)
}
