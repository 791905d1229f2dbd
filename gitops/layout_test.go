package gitops_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/internal/archtest"
)

// layoutExempt are files outside gitops that still name git's files, each
// with the reason and who removes it. The test fails when an exemption is
// no longer needed, so the list only shrinks.
var layoutExempt = map[string]string{}

// gitops owns git's on-disk layout (DESIGN.md): no other package names a
// file under .git, reads HEAD, packed-refs or .gitmodules, reaches into the
// git directories (Repo.GitDir, Repo.CommonDir), spells a private lock name,
// checks a ref name (a regular expression of git's ref-name rules) or
// compares stat data (syscall.Stat_t and its Windows counterpart). This reads every non-test
// Go file of the module outside gitops and fails on each such name, in
// string literals (not comments, not struct tags) and selectors.
func TestNoOtherPackageNamesGitLayout(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bannedSelectors := map[string]string{
		"GitDir":                 "a path in the git directory",
		"CommonDir":              "a path in the git directory",
		"Stat_t":                 "stat data (gitops.StatOf, gitops.Unchanged)",
		"Win32FileAttributeData": "stat data (gitops.StatOf, gitops.Unchanged)",
		"Flock":                  "a lock under .git (gitops.Private.Lock)",
		"LockFileEx":             "a lock under .git (gitops.Private.Lock)",
	}
	// A literal naming one of git's files, or .git itself.
	bannedLiteral := func(s string) string {
		norm := strings.ReplaceAll(s, `\`, "/")
		for _, name := range []string{"HEAD", "packed-refs", ".gitmodules", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "index.lock", "commondir"} {
			if norm == name || strings.HasSuffix(norm, "/"+name) {
				return name
			}
		}
		if strings.Contains(s, `@\{`) || strings.Contains(s, `\.lock`) {
			return "a ref-name rule (gitops.CheckBranchName)"
		}
		if strings.HasPrefix(norm, "own-") {
			return "a private lock name (gitops.Private)"
		}
		if norm == ".git" || strings.HasPrefix(norm, ".git/") || strings.Contains(norm, "/.git/") || strings.HasSuffix(norm, "/.git") {
			return ".git"
		}
		return ""
	}
	used := map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			if rel == "gitops" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && p != root {
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
		// Struct tags are not paths.
		tags := map[*ast.BasicLit]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if fl, ok := n.(*ast.Field); ok && fl.Tag != nil {
				tags[fl.Tag] = true
			}
			return true
		})
		var found []string
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind != token.STRING || tags[n] {
					return true
				}
				s, err := strconv.Unquote(n.Value)
				if err != nil {
					return true
				}
				if name := bannedLiteral(s); name != "" {
					found = append(found, fset.Position(n.Pos()).String()+": names "+name)
				}
			case *ast.SelectorExpr:
				if why := bannedSelectors[n.Sel.Name]; why != "" {
					found = append(found, fset.Position(n.Pos()).String()+": uses "+n.Sel.Name+", "+why)
				}
			}
			return true
		})
		if len(found) == 0 {
			return nil
		}
		if _, ok := layoutExempt[rel]; ok {
			used[rel] = true
			return nil
		}
		for _, f := range found {
			t.Errorf("%s: only gitops may know git's layout; call a gitops function instead", strings.TrimPrefix(f, root+string(filepath.Separator)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel, why := range layoutExempt {
		if !used[rel] {
			t.Errorf("%s no longer names git's layout: remove its exemption (%s)", rel, why)
		}
	}
}

// git is run in one place, gitops.Git (git.go), which handles its
// environment and takes a context: no other non-test file of the module
// starts git itself (exec.Command("git", ...), exec.CommandContext,
// os.StartProcess, syscall.ForkExec). gittest, the tests' own helper,
// may.
func TestOnlyGitopsRunsGit(t *testing.T) {
	starts := map[string]bool{"Command": true, "CommandContext": true, "StartProcess": true, "ForkExec": true}
	isGit := func(e ast.Expr) bool {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return false
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return false
		}
		s = strings.ReplaceAll(s, `\`, "/")
		return s == "git" || s == "git.exe" || strings.HasSuffix(s, "/git") || strings.HasSuffix(s, "/git.exe")
	}
	seen := 0
	archtest.Walk(t, "..", []string{"gitops/gittest"}, func(f archtest.File) {
		ast.Inspect(f.AST, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !starts[sel.Sel.Name] {
				return true
			}
			for _, a := range call.Args {
				if !isGit(a) {
					continue
				}
				if f.Rel == "gitops/git.go" {
					seen++
				} else {
					t.Errorf("%s: runs git itself; call gitops.Git, which takes a context and handles git's environment", f.Where(call.Pos()))
				}
			}
			return true
		})
	})
	if seen != 1 {
		t.Errorf("gitops/git.go starts git in %d places, want 1 (gitCommand): has the helper moved? then move this test's exemption with it", seen)
	}
}
