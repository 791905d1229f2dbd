package reads

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestHintsNameNoDialectsOperation: the engine's hints for reads are sent
// to a model in any dialect, so they name no dialect's operation (a hint
// naming fs.ls reached Axon models, whose dialect has list_files). Only
// diff.go's, for MCP's fs.diff, the one dialect that diffs, may.
func TestHintsNameNoDialectsOperation(t *testing.T) {
	t.Parallel()
	ops := []string{"fs.ls", "fs.read", "fs.write", "fs.search", "list_tree", "list_files", "read_file", "search_files", "replace_file"}
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "diff.go" {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				for _, op := range ops {
					if strings.Contains(lit.Value, op) {
						t.Errorf("%s: the text %s names %s, an operation of one dialect", f, lit.Value, op)
					}
				}
			}
			return true
		})
	}
}
