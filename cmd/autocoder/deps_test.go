package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoGoGitPorcelain keeps go-git's porcelain (Worktree.Status, Add,
// Checkout, Reset, Commit live in its root package) out of the binary, and
// its index codec out of our code: DESIGN.md measured them too slow and too
// destructive for the apply path, so go-git is our object store and nothing
// more. (go-git's storage links its index package itself; we never call it.)
func TestNoGoGitPorcelain(t *testing.T) {
	goList := func(args ...string) string {
		out, err := exec.Command("go", append([]string{"list"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		return string(out)
	}
	for _, pkg := range strings.Fields(goList("-deps", ".")) {
		if pkg == "github.com/go-git/go-git/v5" {
			t.Errorf("cmd/autocoder links go-git's porcelain (Worktree.Status/Add/Checkout/Reset/Commit)")
		}
	}
	for _, line := range strings.Split(goList("-f", "{{.ImportPath}}: {{join .Imports \" \"}}", "github.com/autocoder/autocoder/..."), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		for _, imp := range strings.Fields(imports) {
			if imp == "github.com/go-git/go-git/v5" || imp == "github.com/go-git/go-git/v5/plumbing/format/index" {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}

// TestLayering holds the package layout of DESIGN.md: the step model is a
// leaf (nothing of ours, no git library), and the dialect readers and the
// matcher do not link go-git, so a reader of the text never depends on how
// the repository is stored.
func TestLayering(t *testing.T) {
	deps := func(pkgs ...string) []string {
		out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %v: %v\n%s", pkgs, err, out)
		}
		return strings.Fields(string(out))
	}
	const mod = "github.com/autocoder/autocoder"
	for _, d := range deps(mod + "/step") {
		if d != mod+"/step" && (strings.HasPrefix(d, mod+"/") || strings.Contains(d, "go-git")) {
			t.Errorf("step is not a leaf: it depends on %s", d)
		}
	}
	for _, d := range deps(mod+"/protocol/...", mod+"/matcher") {
		if strings.Contains(d, "github.com/go-git/") || d == mod+"/gitops" || d == mod+"/txn" {
			t.Errorf("the dialect readers or the matcher depend on %s", d)
		}
	}
	// The readers sit below the engine: protocol imports step and its own
	// helpers (the leaf packages every reader shares), never the engine,
	// the reads it runs, or the reports of the CLI.
	helpers := map[string]bool{mod + "/step": true, mod + "/textpos": true, mod + "/textkind": true, mod + "/suggest": true, mod + "/shellwords": true}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}: {{join .Imports \" \"}}", mod+"/protocol/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, mod+"/") && !strings.HasPrefix(imp, mod+"/protocol") && !helpers[imp] {
				t.Errorf("%s imports %s: protocol imports only step and its own helpers", pkg, imp)
			}
		}
	}
}

// TestOneUpdateFlag keeps golden-file rewriting in internal/golden: a test
// package that defines its own -update flag would panic beside it, and two
// copies of the comparison drift apart.
func TestOneUpdateFlag(t *testing.T) {
	// The pattern is built so that this file does not match it.
	cmd := exec.Command("git", "grep", "-l", "--full-name", `flag.Bool("`+`update"`, "--", "*.go")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil && len(out) > 0 {
		t.Fatalf("git grep: %v\n%s", err, out)
	}
	for _, f := range strings.Fields(string(out)) {
		if f != "internal/golden/golden.go" {
			t.Errorf("%s defines its own -update flag; use internal/golden", f)
		}
	}
}

// TestCmdIsThin holds the shape of this package: flags, wiring and the one
// exit-code switch. Result rendering (text and JSON) lives in
// report, so no file here encodes JSON; and no file names a path
// under .git, which is gitops's business (the demo once wrote its
// responses there).
func TestCmdIsThin(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "encoding/json" {
				t.Errorf("%s imports encoding/json: render results in report", name)
			}
		}
		// Where HEAD is and where a run took it are the engine's to say
		// (txn.Report, Engine.Head): cmd once read HEAD itself, four ways.
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && (sel.Sel.Name == "ReadHEAD" || sel.Sel.Name == "ResolveRef") {
				t.Errorf("%s: cmd calls %s: ask the engine (txn.Report, Engine.Head)", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}

// TestLayoutTableNamesEveryPackage keeps the README's layout table true: a
// reader finds the architecture from the folder names, so every package's
// folder (or the folder above it) is in the table.
func TestLayoutTableNamesEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(readme), "## Layout")
	table, _, _ = strings.Cut(table, "\n## ")
	out, err := exec.Command("go", "list", "github.com/autocoder/autocoder/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		dir := strings.TrimPrefix(strings.TrimPrefix(pkg, "github.com/autocoder/autocoder"), "/")
		named := false
		if dir == "" {
			dir = "autocoder.go" // the module root's package: the library entry point
		}
		for d := dir; d != "." && d != ""; d = path.Dir(d) {
			if strings.Contains(table, "`"+d+"`") {
				named = true
				break
			}
		}
		if !named {
			t.Errorf("the README's layout table does not name %s", dir)
		}
	}
}
