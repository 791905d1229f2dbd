package index

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzCacheTree: whatever the TREE extension holds (deep nesting, huge
// or negative counts, a missing LF or hash), parsing it either fails (the
// extension is dropped) or gives a tree that writes back byte for byte,
// and that still parses after any path is invalidated: never a panic
// (expand's "changed after it was parsed" included).
func FuzzCacheTree(f *testing.F) {
	h := strings.Repeat("h", 20)
	f.Add([]byte("\x002 1\n"+h+"a\x001 0\n"+h), "a/b")
	f.Add([]byte("\x00-1 2\na\x00-1 1\nb\x001 0\n"+h+"c\x000 0\n"+h), "a/b/c")
	f.Add([]byte(strings.Repeat("d\x00-1 1\n", 2000)+"e\x001 0\n"+h), strings.Repeat("d/", 1999)+"d")
	f.Add([]byte("\x00-5 1\n"), "x")
	f.Add([]byte("\x0099999999999 0\n"+h), "x")
	f.Fuzz(func(t *testing.T, b []byte, path string) {
		tr, rest, ok := idxParseTree(b)
		if !ok {
			return
		}
		if got := tr.appendTo(nil); !bytes.Equal(got, b[:len(b)-len(rest)]) {
			t.Fatalf("written back %q, read %q", got, b[:len(b)-len(rest)])
		}
		for p := range strings.SplitSeq(path, ",") {
			tr.invalidate(p)
		}
		out := tr.appendTo(nil)
		again, rest2, ok := idxParseTree(out)
		if !ok || len(rest2) != 0 {
			t.Fatalf("the invalidated tree %q does not parse", out)
		}
		if got := again.appendTo(nil); !bytes.Equal(got, out) {
			t.Fatalf("written back %q, read %q", got, out)
		}
	})
}
