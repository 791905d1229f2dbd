package udiff

import (
	"path/filepath"
	"testing"

	"github.com/autocoder/autocoder/internal/golden"
)

// FuzzParse: Parse never panics; its items lie in the text, in order and
// disjoint, each a step or an error with a position in the text; and every
// text a step carries (paths, old and new lines, new files'
// content) quotes the answer, unless it came through a JSON string's
// escapes.
func FuzzParse(f *testing.F) {
	golden.SeedAnswers(f, "../testdata/formats/udiff")
	f.Add([]byte("```diff\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n```\n--- y\n+++ y\n@@\n-q\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		golden.CheckQuotes(t, text, Parse(text))
	})
}

// The seeds of the fuzz target are the golden answers: they must be there.
func TestFuzzSeeds(t *testing.T) {
	if files, _ := filepath.Glob("../testdata/formats/udiff/*.txtar"); len(files) < 20 {
		t.Fatalf("%d golden cases", len(files))
	}
}
