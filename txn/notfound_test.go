package txn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// A path that does not exist, where a tracked file of the same name lies
// elsewhere (a model guessed main.go for cmd/tool/main.go), is answered with
// the files it probably meant; nothing changes.
func TestNotFoundNamesTheFileMeant(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{
		"cmd/tool/main.go": "package main\n", "README.md": "# r\n", "docs/readme.md": "d\n", "axon.txt": "a\n",
	})
	e := open(t, g.Dir, txn.Options{})
	for _, c := range []struct {
		op   step.Op
		want string
	}{
		{readOp(step.OpRead, "main.go", nil), "did you mean cmd/tool/main.go?"},
		{replace("src/main.go", "package main", "package tool"), "did you mean cmd/tool/main.go?"},
		{step.Op{Kind: step.OpDelete, Path: "Readme.md"}, "did you mean README.md or docs/readme.md?"},
	} {
		before := g.Snapshot()
		r := e.Apply(context.Background(), mkStep("s", c.op))
		if r.Status != step.StatusFailed || len(r.Ops) != 1 {
			t.Fatalf("%s %s: status %s, ops %+v", c.op.Kind, c.op.Path, r.Status, r.Ops)
		}
		if !strings.Contains(r.Hint, c.want) || !strings.Contains(r.Ops[0].Hint, c.want) {
			t.Errorf("%s %s: hint %q (op %q), want %q", c.op.Kind, c.op.Path, r.Hint, r.Ops[0].Hint, c.want)
		}
		g.AssertUnchanged(before)
	}
	// Nothing alike (a name that shares only its extension with axon.txt):
	// the hint is the usual one.
	for _, p := range []string{"nothing.txt", "nothere.txt"} {
		r := e.Apply(context.Background(), mkStep("s", readOp(step.OpRead, p, nil)))
		if r.Status != step.StatusFailed || strings.Contains(r.Hint, "did you mean") {
			t.Errorf("%s: status %s, hint %q names a file for a name no file has", p, r.Status, r.Hint)
		}
	}
}
