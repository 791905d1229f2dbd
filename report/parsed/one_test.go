package parsed_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"testing"

	"github.com/autocoder/autocoder/internal/archtest"
	"github.com/autocoder/autocoder/internal/golden"
	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/report"
)

// TestOneParsedView holds "one JSON view of a parsed item": outside
// report/parsed no Go file of the module (tests' helpers included) declares
// a struct that embeds a step.Item, step.Step, step.Op or step.Edit, the
// fingerprint of the second view internal/golden had.
func TestOneParsedView(t *testing.T) {
	t.Parallel()
	views := map[string]bool{"Item": true, "Step": true, "Op": true, "Edit": true}
	archtest.Walk(t, "../..", []string{"report/parsed"}, func(f archtest.File) {
		ast.Inspect(f.AST, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fl := range st.Fields.List {
				if len(fl.Names) > 0 {
					continue
				}
				typ := fl.Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if sel, ok := typ.(*ast.SelectorExpr); ok && views[sel.Sel.Name] {
					if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "step" {
						t.Errorf("%s: a JSON view of step.%s of its own; use report/parsed", f.Where(fl.Pos()), sel.Sel.Name)
					}
				}
			}
			return true
		})
	})
}

// The golden files pin what parse --format json writes: the same items,
// the same JSON (the golden form only indents it).
func TestGoldenIsParseJSON(t *testing.T) {
	t.Parallel()
	items := protocol.Parse([]byte("```mcp-request\n" +
		`{"jsonrpc":"2.0","id":"1","method":"tools/call","params":{"name":"fs.write","arguments":{"path":"a.bin","mode":"overwrite","content":"a\u0000b"}}}` +
		"\n```\n~~~~~act\nreplace f.py\n~~~~~\n~~~~~python\nreturn 1\n~~~~~\n~~~~~python\nreturn 2\n~~~~~\n"))
	var out bytes.Buffer
	if err := report.ParseJSON(&out, items, protocol.Reading{}); err != nil {
		t.Fatal(err)
	}
	var parse struct{ Items json.RawMessage }
	if err := json.Unmarshal(out.Bytes(), &parse); err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := json.Compact(&a, parse.Items); err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&b, golden.Items(items)); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("parse --format json's items:\n%s\nthe golden form:\n%s", a.String(), b.String())
	}
}
