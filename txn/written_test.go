package txn_test

import (
	"context"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// Written content (DIALECTS.md, Axon and general rules): a text write ends
// the file with a line break, an append starts on a new line, and every
// write or append keeps the line-ending style of the file it changes.
func TestWrittenContentKeepsLinesAndStyle(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{
		"crlf.txt":     "one\r\ntwo\r\n",
		"crlf-app.txt": "one\r\ntwo",
		"lf-app.py":    "import os",
		"json.txt":     "x\r\n",
		"mixed.txt":    "a\r\nb\n",
	})
	e := open(t, g.Dir, txn.Options{})
	for _, c := range []struct {
		op   step.Op
		path string
		want string
	}{
		// Axon write_file: final newline, CRLF kept.
		{step.Op{Kind: step.OpWrite, Path: "crlf.txt", Content: []byte("new\nlines"), TextLines: true}, "crlf.txt", "new\r\nlines\r\n"},
		// Axon write_file of a new file: a final newline.
		{step.Op{Kind: step.OpWrite, Path: "new.txt", Content: []byte("x"), TextLines: true}, "new.txt", "x\n"},
		// Axon append_file: on a new line, ending with one, in the file's style.
		{step.Op{Kind: step.OpAppend, Path: "crlf-app.txt", Content: []byte("three"), MustExist: true, TextLines: true}, "crlf-app.txt", "one\r\ntwo\r\nthree\r\n"},
		{step.Op{Kind: step.OpAppend, Path: "lf-app.py", Content: []byte("import sys\n"), MustExist: true, TextLines: true}, "lf-app.py", "import os\nimport sys\n"},
		// create_file / fs.write over an existing CRLF file: CRLF stays,
		// and no final newline is added (not an Axon text write).
		{step.Op{Kind: step.OpWrite, Path: "json.txt", Content: []byte("{\n}")}, "json.txt", "{\r\n}"},
		// A file of mixed endings has no style to keep: bytes as written.
		{step.Op{Kind: step.OpWrite, Path: "mixed.txt", Content: []byte("c\nd\n")}, "mixed.txt", "c\nd\n"},
	} {
		r := e.Apply(context.Background(), mkStep(c.path, c.op))
		if r.Status != step.StatusApplied {
			t.Fatalf("%s: %s %s", c.path, r.Status, r.Error)
		}
		if got := g.MustRead(c.path); got != c.want {
			t.Errorf("%s: %q, want %q", c.path, got, c.want)
		}
		if got := g.Git("show", "HEAD:"+c.path); got != c.want {
			t.Errorf("%s: committed %q, want %q", c.path, got, c.want)
		}
	}
	g.AssertClean()
	g.Fsck()
}
