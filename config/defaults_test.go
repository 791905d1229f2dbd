package config

import (
	"go/ast"
	"go/token"
	"strconv"
	"testing"

	"github.com/autocoder/autocoder/internal/archtest"
)

// TestDefaultsLiveInConfig holds "defaults in config": outside config no
// non-test file writes the default branch prefix, the default API key
// variable or one of the default sizes (max_file_bytes,
// max_response_bytes) as a value of its own;
// the engine, the reads, the model client and the runner fall back on
// config's constants.
func TestDefaultsLiveInConfig(t *testing.T) {
	t.Parallel()
	// 1 MiB (programs.max_output_bytes) is every other cap's size too, so
	// it is not one of these.
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
	archtest.Walk(t, "..", []string{"config"}, func(f archtest.File) {
		where := f.Where
		ast.Inspect(f.AST, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				s, err := strconv.Unquote(n.Value)
				if err != nil || n.Kind != token.STRING {
					return true
				}
				if s == DefaultBranchPrefix {
					t.Errorf("%s: the default branch prefix written again; use config.DefaultBranchPrefix", where(n.Pos()))
				}
				if s == DefaultAPIKeyEnv {
					t.Errorf("%s: the default API key variable written again; use config.DefaultAPIKeyEnv", where(n.Pos()))
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
					t.Errorf("%s: a default size of config written again; use config.%s", where(n.Pos()), name)
				}
			}
			return true
		})
	})
}
