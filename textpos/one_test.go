package textpos

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneConverter holds "one offset→line:column converter" (issue 7):
// outside this package no source file of the module computes a column as
// one plus a count of characters (1 + utf8.RuneCount(…)), the fingerprint
// of the converters that tjson, the MCP reader, the Axon reader and the
// shell-word splitter each had.
func TestOneConverter(t *testing.T) {
	root := ".."
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "textpos") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		files++
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if b, ok := n.(*ast.BinaryExpr); ok && b.Op == token.ADD && (isOne(b.X) && isRuneCount(b.Y) || isOne(b.Y) && isRuneCount(b.X)) {
				t.Errorf("%s: a column computed by hand: use textpos (Of, Advance, Locate or an Index)", fset.Position(b.Pos()))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("only %d files looked at: the walk looked in the wrong place", files)
	}
}

func isOne(e ast.Expr) bool {
	l, ok := e.(*ast.BasicLit)
	return ok && l.Kind == token.INT && l.Value == "1"
}

func isRuneCount(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	s, ok := c.Fun.(*ast.SelectorExpr)
	return ok && strings.HasPrefix(s.Sel.Name, "RuneCount")
}
