package runner

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// startExempt are the non-test files and folders (a trailing /) outside
// this package that may start a process, and why. Keep it short: a new
// entry is a second place that would have to stop a process tree, scrub an
// environment and keep the API key out.
var startExempt = map[string]string{
	"gitops/git.go":   "gitops.Git, the one place autocoder runs git (gitops' TestOnlyGitopsRunsGit)",
	"gitops/gittest/": "the tests' own helper, which builds repositories with git",
}

// execExempt are the folders outside this package whose non-test files may
// import os/exec without starting a process (startExempt says who starts).
var execExempt = map[string]string{
	"gitops/": "names exec's types and LookPath around gitops.Git (exec.ExitError, the *exec.Cmd of git check-ignore --stdin)",
}

// processStarts are the calls that start a process, by import path.
var processStarts = map[string]map[string]bool{
	"os/exec":                  {"Command": true, "CommandContext": true},
	"os":                       {"StartProcess": true},
	"syscall":                  {"ForkExec": true, "StartProcess": true, "Exec": true, "CreateProcess": true, "CreateProcessAsUser": true},
	"golang.org/x/sys/unix":    {"Exec": true, "ForkExec": true},
	"golang.org/x/sys/windows": {"CreateProcess": true, "CreateProcessAsUser": true, "ShellExecute": true},
}

// TestOnlyRunnerStartsProcesses holds "one home for programs": every
// process autocoder starts goes through this package (its process group,
// its timeout, its scrubbed environment), except git, which gitops runs in
// one place. No non-test file outside runner imports os/exec or calls
// os.StartProcess, syscall.ForkExec or their like, but the exemptions above,
// each of which must still be needed.
func TestOnlyRunnerStartsProcesses(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	exempt := func(rel string, list map[string]string) bool {
		for e := range list {
			if rel == e || strings.HasSuffix(e, "/") && strings.HasPrefix(rel, e) {
				used[e] = true
				return true
			}
		}
		return false
	}
	fset := token.NewFileSet()
	ownStarts := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
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
		mine := strings.HasPrefix(rel, "runner/")
		names := map[string]string{} // local name -> import path, for processStarts
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if _, ok := processStarts[path]; !ok {
				continue
			}
			name := path[strings.LastIndexByte(path, '/')+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			names[name] = path
			if path == "os/exec" && !mine && !exempt(rel, startExempt) && !exempt(rel, execExempt) {
				t.Errorf("%s imports os/exec: run programs with package runner (runner.Run, or the engine's policy from runner.New)", rel)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok || !processStarts[names[x.Name]][sel.Sel.Name] {
				return true
			}
			if mine {
				ownStarts++
			} else if !exempt(rel, startExempt) {
				t.Errorf("%s: %s.%s starts a process outside runner: run it with package runner", fset.Position(sel.Pos()), x.Name, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if ownStarts == 0 {
		t.Error("no process start found in runner itself: the test no longer recognises how a process is started")
	}
	for _, list := range []map[string]string{startExempt, execExempt} {
		for e, why := range list {
			if !used[e] {
				t.Errorf("%s no longer needs its exemption (%s): remove it", e, why)
			}
		}
	}
}

// TestRunnerIsBelowTheEngine: the engine calls runner (txn.Options.Programs
// is a runner.Policy), never the reverse, and config only holds the values
// runner judges by; so runner imports neither txn nor the CLI, and config
// does not import runner.
func TestRunnerIsBelowTheEngine(t *testing.T) {
	const mod = "github.com/autocoder/autocoder"
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", mod+"/"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		return strings.Fields(string(out))
	}
	for _, d := range deps("runner") {
		if d == mod+"/txn" || strings.HasPrefix(d, mod+"/txn/") || strings.HasPrefix(d, mod+"/cmd/") ||
			d == mod+"/agent" || d == mod+"/mcpserver" || d == mod+"/bridge" {
			t.Errorf("runner depends on %s: the engine and the commands call runner, never the reverse", d)
		}
	}
	for _, d := range deps("config") {
		if d == mod+"/runner" {
			t.Errorf("config depends on runner: runner judges by config's values, so runner imports config, never the reverse")
		}
	}
}
