package mcp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOneScanner holds issue 7's "one fence scanner, one JSON reader" for
// this package: it finds fences with protocol/fence and reads JSON with
// protocol/tjson, and has no scanner of its own. A scanner of fences or of
// JSON strings has to look for a backtick, a double quote or a backslash
// byte, so no source file here may hold one of those as a character
// literal; nor may it call json.Valid or walk encoding/json's token stream.
func TestOneScanner(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			imports[p] = true
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind == token.CHAR && (n.Value == "'`'" || n.Value == `'"'` || n.Value == `'\\'`) {
					t.Errorf("%s: the character %s: fences are found by protocol/fence and JSON is read by protocol/tjson", fset.Position(n.Pos()), n.Value)
				}
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "json" && n.Sel.Name == "Valid" {
					t.Errorf("%s: json.Valid: requests are validated by tjson.ParseNodeStrict", fset.Position(n.Pos()))
				}
				if n.Sel.Name == "Token" {
					t.Errorf("%s: a JSON token stream: requests are read by tjson.ParseNodeStrict", fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
	for _, want := range []string{"github.com/autocoder/autocoder/protocol/fence", "github.com/autocoder/autocoder/protocol/tjson"} {
		if !imports[want] {
			t.Errorf("protocol/mcp does not use %s", want)
		}
	}
}
