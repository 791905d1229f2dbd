package txn_test

import (
	"context"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// NoReplace (an empty SEARCH block, the editor tool's create) creates a
// file or fills an empty one, leaves a file that already holds the content
// as it is, and refuses any other existing file, changing nothing.
func TestNoReplaceWrite(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"full.txt": "old\n", "empty.txt": ""})
	e := open(t, g.Dir, txn.Options{})
	nr := func(path, content string) step.Op {
		return step.Op{Kind: step.OpWrite, Path: path, Content: []byte(content), NoReplace: true}
	}
	r := mustApply(t, e, mkStep("s1", nr("new.txt", "n\n"), nr("empty.txt", "e\n")))
	if g.MustRead("new.txt") != "n\n" || g.MustRead("empty.txt") != "e\n" || r.Ops[1].Message != "filled the empty file" {
		t.Fatalf("files %q %q, messages %+v", g.MustRead("new.txt"), g.MustRead("empty.txt"), r.Ops)
	}
	// The same again: nothing to change, no refusal.
	if r := e.Apply(context.Background(), mkStep("s2", nr("new.txt", "n\n"))); r.Status != step.StatusUnchanged {
		t.Fatalf("applied again: %s %s", r.Status, r.Error)
	}
	before := g.Snapshot()
	r = e.Apply(context.Background(), mkStep("s3", nr("new.txt", "other\n")))
	if r.Status != step.StatusFailed || r.Reason != step.ReasonExists || r.Hint == "" {
		t.Fatalf("a write over other content: %s %s %q", r.Status, r.Reason, r.Hint)
	}
	r = e.Apply(context.Background(), mkStep("s4", nr("full.txt", "x\n")))
	if r.Status != step.StatusFailed || r.Reason != step.ReasonExists {
		t.Fatalf("a write over a full file: %s %s", r.Status, r.Reason)
	}
	g.AssertUnchanged(before)
}

// AfterLine inserts by line number, as the text editor tool counts lines
// (the text split at "\n"), and keeps the file's line endings and its final
// newline or its lack of one; a line outside the file is refused.
func TestInsertAfterLine(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\nb\n", "nonl.txt": "a\nb", "crlf.txt": "a\r\nb\r\n"})
	e := open(t, g.Dir, txn.Options{})
	ins := func(path string, k int, content string) step.Op {
		return step.Op{Kind: step.OpAppend, Path: path, Content: []byte(content), AfterLine: &k}
	}
	mustApply(t, e, mkStep("s1", ins("a.txt", 0, "top"), ins("nonl.txt", 2, "c"), ins("crlf.txt", 1, "x\ny")))
	for path, want := range map[string]string{"a.txt": "top\na\nb\n", "nonl.txt": "a\nb\nc", "crlf.txt": "a\r\nx\r\ny\r\nb\r\n"} {
		if got := g.MustRead(path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	mustApply(t, e, mkStep("s2", ins("a.txt", 2, "mid\n")))
	if got := g.MustRead("a.txt"); got != "top\na\nmid\n\nb\n" {
		t.Errorf("a.txt = %q: new_str ending in a line break leaves an empty line, as the tool's insert does", got)
	}
	// The same insert again finds its text in place: nothing changes.
	if r := e.Apply(context.Background(), mkStep("s3", ins("a.txt", 2, "mid\n"), ins("nonl.txt", 2, "c"))); r.Status != step.StatusUnchanged {
		t.Fatalf("the same inserts again: %s %s", r.Status, r.Error)
	}
	before := g.Snapshot()
	for _, k := range []int{-1, 7} {
		r := e.Apply(context.Background(), mkStep("bad", ins("a.txt", k, "z")))
		if r.Status != step.StatusFailed || r.Hint == "" {
			t.Fatalf("insert_line %d: %s %s", k, r.Status, r.Error)
		}
	}
	g.AssertUnchanged(before)
}
