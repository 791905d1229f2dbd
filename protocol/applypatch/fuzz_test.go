package applypatch

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/internal/golden"
	"github.com/autocoder/autocoder/step"
)

// FuzzParse: Parse never panics; its items lie in the text, in order and
// disjoint, each a step or an error with a position in the text; and every
// text a step carries (paths, anchors, old and new lines, new files'
// content) quotes the answer, unless it came through a JSON string's
// escapes; and a step written back as a patch reads as the same step.
func FuzzParse(f *testing.F) {
	golden.SeedAnswers(f, "../testdata/formats/apply_patch")
	f.Add([]byte("*** Begin Patch\n*** Update File: a\n@@ x\n@@\n-y\n+z\n*** End of File\n*** End Patch\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		items := Parse(text)
		golden.CheckQuotes(t, text, items)
		for _, it := range items {
			if it.Step != nil {
				checkRenders(t, it.Step)
			}
		}
	})
}

// render writes a step back as a patch: each chunk as its anchors, its old
// lines and its new lines.
func render(s *step.Step) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	lines := func(prefix, text string) {
		if text == "" {
			return
		}
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			b.WriteString(prefix + l + "\n")
		}
	}
	for i, op := range s.Ops {
		switch op.Kind {
		case step.OpWrite:
			b.WriteString("*** Add File: " + op.Path + "\n")
			lines("+", string(op.Content))
		case step.OpDelete:
			b.WriteString("*** Delete File: " + op.Path + "\n")
		case step.OpReplace:
			b.WriteString("*** Update File: " + op.Path + "\n")
			if i+1 < len(s.Ops) && s.Ops[i+1].Kind == step.OpMove && s.Ops[i+1].Path == op.Path {
				b.WriteString("*** Move to: " + s.Ops[i+1].To + "\n")
			}
			for _, e := range op.Edits {
				if len(e.Anchors) == 0 {
					b.WriteString("@@\n")
				}
				for _, a := range e.Anchors {
					b.WriteString("@@ " + a + "\n")
				}
				lines("-", e.Old)
				lines("+", e.New)
				if e.AtEnd && e.Old != "" {
					b.WriteString("*** End of File\n")
				}
			}
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// checkRenders: a step written back as a patch reads as the same step.
func checkRenders(t *testing.T, s *step.Step) {
	t.Helper()
	text := render(s)
	items := Parse([]byte(text))
	if len(items) != 1 || items[0].Step == nil {
		t.Fatalf("the step written back does not read: %q: %+v", text, items)
	}
	got := items[0].Step.Ops
	if len(got) != len(s.Ops) {
		t.Fatalf("%d ops read back from %q, want %d", len(got), text, len(s.Ops))
	}
	for i, op := range s.Ops {
		g := got[i]
		if g.Kind != op.Kind || g.Path != op.Path || g.To != op.To || string(g.Content) != string(op.Content) || len(g.Edits) != len(op.Edits) {
			t.Fatalf("op %d reads back as %+v, want %+v (from %q)", i, g, op, text)
		}
		for j, e := range op.Edits {
			ge := g.Edits[j]
			if ge.Old != e.Old || ge.New != e.New || ge.AtEnd != e.AtEnd || strings.Join(ge.Anchors, "\n") != strings.Join(e.Anchors, "\n") {
				t.Fatalf("op %d edit %d reads back as %+v, want %+v (from %q)", i, j, ge, e, text)
			}
		}
	}
}

// The seeds of the fuzz target are the golden answers: they must be there.
func TestFuzzSeeds(t *testing.T) {
	if files, _ := filepath.Glob("../testdata/formats/apply_patch/*.txtar"); len(files) < 20 {
		t.Fatalf("%d golden cases", len(files))
	}
}
