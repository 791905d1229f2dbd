package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDefaultsLiveInConfig holds "defaults in config": outside config no
// non-test file writes the default branch prefix or one of the default
// sizes (max_file_bytes, max_response_bytes) as a number of its own; the
// engine, the reads and the model client fall back on config's constants.
func TestDefaultsLiveInConfig(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[int64]string{DefaultMaxFileBytes: "DefaultMaxFileBytes", DefaultMaxResponseBytes: "DefaultMaxResponseBytes"}
	intOf := func(e ast.Expr) (int64, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.INT {
			return 0, false
		}
		n, err := strconv.ParseInt(lit.Value, 0, 64)
		return n, err == nil
	}
	isMiB := func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.Ident:
			return e.Name == "MiB"
		case *ast.SelectorExpr:
			return e.Sel.Name == "MiB"
		}
		return false
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			if rel == "config" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && p != root {
				return filepath.SkipDir
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
		where := func(n ast.Node) string {
			return strings.TrimPrefix(fset.Position(n.Pos()).String(), root+string(filepath.Separator))
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && s == DefaultBranchPrefix {
					t.Errorf("%s: the default branch prefix written again; use config.DefaultBranchPrefix", where(n))
				}
			case *ast.BinaryExpr:
				var size int64
				switch x, ok := intOf(n.X); {
				case ok && n.Op == token.SHL:
					if y, ok := intOf(n.Y); ok {
						size = x << y
					}
				case ok && n.Op == token.MUL && isMiB(n.Y):
					size = x * MiB
				}
				if name := sizes[size]; name != "" {
					t.Errorf("%s: a default size of config written again; use config.%s", where(n), name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
