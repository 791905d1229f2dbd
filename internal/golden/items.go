package golden

import (
	"testing"

	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textpos"
)

// CheckItems asserts the properties every reader's Parse result has: items
// in order and disjoint, inside the text, each exactly one of Step and Err
// of the dialect, and positions that agree with their offsets and lie
// inside their item.
func CheckItems(t testing.TB, dialect string, text []byte, items []step.Item) {
	t.Helper()
	x := textpos.NewIndex(text)
	prev := 0
	for i, it := range items {
		if it.Start < prev || it.End <= it.Start || it.End > len(text) {
			t.Fatalf("item %d spans [%d,%d) after %d in %d bytes", i, it.Start, it.End, prev, len(text))
		}
		prev = it.End
		if (it.Step == nil) == (it.Err == nil) {
			t.Fatalf("item %d: want exactly one of Step and Err", i)
		}
		var positions []step.Pos
		if s := it.Step; s != nil {
			if s.Dialect != dialect || s.ID == "" || len(s.Ops) == 0 {
				t.Fatalf("item %d: step %+v lacks dialect, id or ops", i, s)
			}
			positions = append(positions, s.Pos)
			for _, op := range s.Ops {
				positions = append(positions, op.Pos)
				for _, e := range op.Edits {
					positions = append(positions, e.Pos)
				}
			}
			for _, r := range s.Repairs {
				positions = append(positions, r.Pos)
			}
		} else {
			if it.Err.Dialect != dialect || it.Err.Msg == "" {
				t.Fatalf("item %d: error %+v lacks dialect or message", i, it.Err)
			}
			positions = append(positions, it.Err.Pos)
		}
		for _, p := range positions {
			if p != x.Pos(p.Offset) {
				t.Fatalf("item %d: position %+v does not match its offset (%+v)", i, p, x.Pos(p.Offset))
			}
			if p.Offset < it.Start || p.Offset > it.End {
				t.Fatalf("item %d: position %+v outside [%d,%d)", i, p, it.Start, it.End)
			}
		}
	}
}
