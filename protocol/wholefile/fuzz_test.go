package wholefile

import (
	"bytes"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/internal/golden"
	"github.com/autocoder/autocoder/protocol/fence"
)

// FuzzParse checks Parse's properties on any text: no panic, well-formed
// items, every written line quoted from its block, and a step written back
// (path line, a fence longer than any run in the content, the content)
// reading as the same write.
func FuzzParse(f *testing.F) {
	golden.SeedAnswers(f, "../testdata/formats/wholefile")
	f.Fuzz(func(t *testing.T, text []byte) {
		items := Parse(text)
		golden.CheckItems(t, Dialect, text, items)
		for _, it := range items {
			if it.Step == nil {
				t.Fatalf("whole files have no unreadable blocks: %+v", it.Err)
			}
			block := text[it.Start:it.End]
			op := it.Step.Ops[0]
			for _, l := range strings.Split(strings.TrimSuffix(string(op.Content), "\n"), "\n") {
				if !bytes.Contains(block, []byte(l)) {
					t.Fatalf("the line %q is not in the block %q", l, block)
				}
			}
			// The content is whole lines: a fence of backticks one longer
			// than its longest run cannot close early.
			n := 3
			for _, l := range strings.Split(string(op.Content), "\n") {
				n = max(n, len(l)-len(strings.TrimLeft(l, "`"))+1)
			}
			r := op.Path + "\n" + strings.Repeat("`", n) + "\n" + string(op.Content) + strings.Repeat("`", n) + "\n"
			back := Parse([]byte(r))
			if len(back) != 1 {
				if claimed(back0(r)) {
					continue // content another format reads
				}
				t.Fatalf("%q written back as %q does not read back: %+v", block, r, back)
			}
			got := back[0].Step.Ops[0]
			if got.Path != op.Path || !bytes.Equal(got.Content, op.Content) {
				t.Fatalf("%q written back reads as %q %q, not %q %q", block, got.Path, got.Content, op.Path, op.Content)
			}
		}
	})
}

// back0 is the first fence of r.
func back0(r string) fence.Block {
	return fence.Scan([]byte(r))[0]
}
