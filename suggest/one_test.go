package suggest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOneSuggester holds "one did-you-mean suggester" (issue 7): every
// source file of the module that writes "did you mean" finds the name with
// this package, so no file keeps an edit distance or a name table of its
// own for it.
func TestOneSuggester(t *testing.T) {
	root := ".."
	found := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "suggest") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !strings.Contains(strings.ToLower(string(src)), "did you mean") {
			return nil
		}
		found++
		f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "github.com/autocoder/autocoder/suggest" {
				return nil
			}
		}
		t.Errorf("%s says \"did you mean\" without package suggest: find the name with suggest.Closest", p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no file says \"did you mean\": the walk looked in the wrong place")
	}
}
