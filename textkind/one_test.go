package textkind_test

import (
	"go/ast"
	"testing"

	"github.com/autocoder/autocoder/internal/archtest"
)

// nulExempt are the files that look for a NUL byte for another reason
// than to call content binary.
var nulExempt = map[string]string{
	"protocol/axon/axon.go": "NUL is the reader's own mask for lines inside other blocks",
}

// TestOneBinaryRule holds "one rule for binary": outside textkind no
// non-test file looks for a NUL byte ({bytes,strings}.IndexByte(x, 0)),
// the fingerprint of the five rules the reads, the search, the matcher,
// the diff writer and the JSON views each had. gitops is left out: it
// reads git's formats, whose fields end in NUL bytes, and its text test
// for line endings is git's own convert_is_binary (a count of
// non-printable bytes), which must stay git's.
func TestOneBinaryRule(t *testing.T) {
	t.Parallel()
	used := map[string]bool{}
	archtest.Walk(t, "..", []string{"textkind", "gitops"}, func(f archtest.File) {
		ast.Inspect(f.AST, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 2 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "IndexByte" {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "bytes" && pkg.Name != "strings" {
				return true
			}
			if lit, ok := call.Args[1].(*ast.BasicLit); !ok || lit.Value != "0" {
				return true
			}
			if _, ok := nulExempt[f.Rel]; ok {
				used[f.Rel] = true
				return true
			}
			t.Errorf("%s: looks for a NUL byte itself; ask textkind.Binary (or textkind.UTF16 first)", f.Where(call.Pos()))
			return true
		})
	})
	for rel, why := range nulExempt {
		if !used[rel] {
			t.Errorf("%s no longer looks for a NUL byte: remove its exemption (%s)", rel, why)
		}
	}
}
