// Package archtest is the walk the architecture tests share: every non-test
// Go file of the module, parsed, so that a test that holds "one concept,
// one place" (only gitops runs git, one binary rule, one view of parsed
// items, defaults in config) says only what it looks for. It is for tests
// only.
package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// File is one parsed non-test Go file of the module.
type File struct {
	Rel  string // its path from the module's root, slash-separated
	AST  *ast.File
	root string
	fset *token.FileSet
}

// Where is the place of pos as a message names it: the file's path from
// the module's root, its line and column.
func (f File) Where(pos token.Pos) string {
	return strings.TrimPrefix(f.fset.Position(pos).String(), f.root+string(filepath.Separator))
}

// Walk calls fn with every non-test Go file below the module's root
// (module: the root's path from the calling test's folder, e.g. "..").
// Folders named testdata or node_modules, hidden folders and the folders
// of skip (paths from the root, slash-separated) are left out.
func Walk(t testing.TB, module string, skip []string, fn func(File)) {
	t.Helper()
	root, err := filepath.Abs(module)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			if p == root {
				return nil
			}
			if n := d.Name(); n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".") {
				return filepath.SkipDir
			}
			for _, s := range skip {
				if rel == s {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		fn(File{Rel: rel, AST: f, root: root, fset: fset})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
