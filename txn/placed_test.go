package txn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// The engine hands an edit's placement (anchors, chunks in order, end of
// file) to the matcher: an anchored chunk lands after its anchor, and an
// unknown anchor fails the step with nothing changed.
func TestPlacedEditsReachTheMatcher(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.py": "def f():\r\n    pass\r\ndef g():\r\n    pass\r\n"})
	e := open(t, g.Dir, txn.Options{})
	bad := e.Apply(context.Background(), mkStep("bad", step.Op{Kind: step.OpReplace, Path: "a.py",
		Edits: []step.Edit{{Anchors: []string{"def h():"}, Old: "    pass\n", New: "    return 1\n"}}}))
	if bad.Status != step.StatusFailed || bad.Reason != step.ReasonNoMatch || !strings.Contains(bad.Error, `anchor "def h():"`) {
		t.Fatalf("unknown anchor: %s %s %s", bad.Status, bad.Reason, bad.Error)
	}
	g.AssertClean()
	r := e.Apply(context.Background(), mkStep("ok", step.Op{Kind: step.OpReplace, Path: "a.py",
		Edits: []step.Edit{{Anchors: []string{"def g():"}, Old: "    pass\n", New: "    return 1\n"}, {New: "# end\n", AtEnd: true, Follows: true}}}))
	if r.Status != step.StatusApplied {
		t.Fatalf("%s %s", r.Status, r.Error)
	}
	if got := g.MustRead("a.py"); got != "def f():\r\n    pass\r\ndef g():\r\n    return 1\r\n# end\r\n" {
		t.Errorf("a.py = %q", got)
	}
	g.Fsck()
}

// A delete that quotes the file's content (a unified diff's deletion) is
// refused when the file holds something else; CRLF against LF is the same
// text.
func TestDeleteWithContentIsAPrecondition(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\r\ntwo\r\n", "b.txt": "b\n"})
	e := open(t, g.Dir, txn.Options{})
	r := e.Apply(context.Background(), mkStep("bad", step.Op{Kind: step.OpDelete, Path: "a.txt", Content: []byte("one\n"), HasContent: true}))
	if r.Status != step.StatusFailed || r.Class != step.ClassPrecondition || !strings.Contains(r.Error, "does not hold the lines") {
		t.Fatalf("%s %v %s", r.Status, r.Class, r.Error)
	}
	g.AssertClean()
	r = e.Apply(context.Background(), mkStep("ok", step.Op{Kind: step.OpDelete, Path: "a.txt", Content: []byte("one\ntwo\n"), HasContent: true}))
	if r.Status != step.StatusApplied {
		t.Fatalf("%s %s", r.Status, r.Error)
	}
	if strings.TrimSpace(g.Git("ls-files")) != "b.txt" {
		t.Errorf("ls-files: %s", g.Git("ls-files"))
	}
	g.Fsck()
}
