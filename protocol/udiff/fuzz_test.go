package udiff

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/autocoder/autocoder/step"
)

// FuzzParse: Parse never panics; its items lie in the text, in order and
// disjoint, each a step or an error with a position in the text; and every
// text a step carries (paths, old and new lines, new files'
// content) quotes the answer, unless it came through a JSON string's
// escapes.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../testdata/formats/udiff/*.txtar")
	for _, name := range files {
		if a, err := txtar.ParseFile(name); err == nil {
			for _, file := range a.Files {
				if file.Name == "answer.md" {
					f.Add(file.Data)
				}
			}
		}
	}
	f.Add([]byte("```diff\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n```\n--- y\n+++ y\n@@\n-q\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		checkQuotes(t, text, Parse(text))
	})
}

func checkQuotes(t *testing.T, text []byte, items []step.Item) {
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

// The seeds of the fuzz target are the golden answers: they must be there.
func TestFuzzSeeds(t *testing.T) {
	if files, _ := filepath.Glob("../testdata/formats/udiff/*.txtar"); len(files) < 20 {
		t.Fatalf("%d golden cases", len(files))
	}
}
