package golden

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

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

// CheckQuotes asserts that every edit a reader returns quotes the answer:
// each line of a path, target, content, old and new text and anchor stands
// in the item's span (a span holding JSON escapes is not the answer's
// bytes and is passed over), with items in order, inside the text, and
// errors at a position in it.
func CheckQuotes(t testing.TB, text []byte, items []step.Item) {
	t.Helper()
	end := 0
	for _, it := range items {
		if it.Start < end || it.End < it.Start || it.End > len(text) || (it.Step == nil) == (it.Err == nil) {
			t.Fatalf("item [%d,%d) after %d of %d bytes: %+v", it.Start, it.End, end, len(text), it)
		}
		end = it.End
		if it.Err != nil {
			if it.Err.Pos.Offset > len(text) || it.Err.Pos.Line < 1 {
				t.Fatalf("error position %+v", it.Err.Pos)
			}
			continue
		}
		span := string(text[it.Start:it.End])
		if strings.Contains(span, `\`) {
			continue // a JSON string's escapes: its text is not the answer's bytes
		}
		quoted := func(what, s string) {
			for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
				if !strings.Contains(span, strings.TrimSpace(l)) {
					t.Fatalf("%s line %q is not in the block %q", what, l, span)
				}
			}
		}
		for _, op := range it.Step.Ops {
			quoted("path", op.Path)
			quoted("target", op.To)
			quoted("content", string(op.Content))
			for _, e := range op.Edits {
				quoted("old", e.Old)
				quoted("new", e.New)
				for _, a := range e.Anchors {
					quoted("anchor", a)
				}
			}
		}
	}
}

// SeedAnswers adds the answer (answer.md) of every golden case in dir (a
// folder of txtar archives) to f's seed corpus; no case is an error, so
// that a moved folder never leaves a fuzz target without its seeds.
func SeedAnswers(f *testing.F, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.txtar"))
	for _, name := range files {
		ar, err := txtar.ParseFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, fl := range ar.Files {
			if fl.Name == "answer.md" {
				f.Add(fl.Data)
			}
		}
	}
	if len(files) == 0 {
		f.Fatalf("no golden cases in %s to seed the corpus", dir)
	}
}
