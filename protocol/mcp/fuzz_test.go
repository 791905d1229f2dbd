package mcp

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks the properties of every Parse result (checkItems:
// ordered, disjoint, exactly one of Step/Err, positions that match their
// offsets), that parsing is deterministic, and that an item's own text
// parses alone to the same kind of item.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(corpus, "mcp-*.md"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("mcp-request\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n```\n```x\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		items := Parse(text)
		checkItems(t, text, items)
		again := Parse(text)
		if len(again) != len(items) {
			t.Fatalf("not deterministic: %d then %d items", len(items), len(again))
		}
		for i, it := range items {
			alone := Parse(text[it.Start:it.End])
			if len(alone) == 0 || (alone[0].Step == nil) != (it.Step == nil) {
				t.Fatalf("item %d [%d,%d) does not read back alone: %+v", i, it.Start, it.End, alone)
			}
		}
	})
}
