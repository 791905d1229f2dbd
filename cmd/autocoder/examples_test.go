package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// exampleCase is one example of a prompt (prompt/examples/DIALECT/NAME.md)
// applied as a model's whole answer: the repository it expects, and what
// the prompt says it does.
type exampleCase struct {
	dialect, name string
	// also are examples applied in the same answer after this one (a live
	// program and the check_program that stops it).
	also []string
	// files are committed before the answer is applied: what it expects.
	files map[string]string
	// edit changes the example's text before it is applied ("" none).
	edit func(text, root string) string
	// commits is how many commits the answer adds to the work branch.
	commits int
	// exit is the exit code the prompt promises (0 unless said).
	exit int
	// want are files and their content after the answer; "" means the
	// path must not exist.
	want map[string]string
	// ran are the programs that must have run, each as its fake records
	// it: the folder relative to the root, then its words.
	ran []string
	// feedback are texts the executor's answer must hold.
	feedback []string
	check    func(t *testing.T, g *gittest.Repo)
}

// greetTS is the file the MCP prompt's write example creates, and the
// version its edit example rewrites (by the sha256 includeMeta gave).
const greetTS = "export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n"

func exampleCases() []exampleCase {
	game := "import pygame\n\n\nclass Tetris:\n    def __init__(self):\n        pass\n"
	cs := []exampleCase{
		// autocoder JSON
		{dialect: "autocoder", name: "create", commits: 1,
			want: map[string]string{"tetris/game.py": game},
			check: func(t *testing.T, g *gittest.Repo) {
				if fi, err := os.Stat(filepath.Join(g.Dir, "tetris/assets")); err != nil || !fi.IsDir() {
					t.Errorf("tetris/assets is not a folder: %v", err)
				}
			}},
		{dialect: "autocoder", name: "edit", files: map[string]string{"tetris/game.py": game}, commits: 1,
			want: map[string]string{"tetris/game.py": "import pygame\n\n\nclass Tetris:\n    def __init__(self):\n" +
				"        self.screen = pygame.display.set_mode((800, 600))\n        self.clock = pygame.time.Clock()\n"},
			ran: []string{". python -m py_compile tetris/game.py"}},
		{dialect: "autocoder", name: "finish", commits: 0,
			feedback: []string{"Created tetris/game.py"}},
		{dialect: "autocoder", name: "read", files: map[string]string{"tetris/game.py": game}, commits: 0,
			feedback: []string{"tetris/game.py", "class Tetris:"}},
		{dialect: "autocoder", name: "rewrite", commits: 1,
			files: map[string]string{"NOTES.md": "old notes\n", "draft.py": "x = 1\n", "old/a.py": "a\n", "old/sub/b.py": "b\n"},
			want: map[string]string{"NOTES.md": "# Notes\n\nThe game starts with python tetris/game.py.\n",
				"draft.py": "", "old/a.py": "", "old/sub/b.py": "", "old": ""}},
		{dialect: "autocoder", name: "serve", also: []string{"stop"}, commits: 0,
			ran:      []string{". python3 -m http.server 8000"},
			feedback: []string{"Serving HTTP on 0.0.0.0 port 8000", `"terminated"`}},
		{dialect: "autocoder", name: "several", commits: 2,
			want: map[string]string{"tests/test_score.py": "from tetris.score import points\n\n\ndef test_points():\n    assert points(4) == 800\n",
				"tetris/score.py": "TABLE = {1: 100, 2: 300, 3: 500, 4: 800}\n\n\ndef points(lines):\n    return TABLE.get(lines, 0)\n"},
			ran:      []string{". python -m pytest -q"},
			feedback: []string{"1 passed"}},

		// FlyCode MCP
		{dialect: "mcp", name: "batch", files: map[string]string{"CHANGELOG.md": "# Changes\n"}, commits: 1,
			want: map[string]string{"web/app.js": "console.log(\"ready\");\n", "CHANGELOG.md": "# Changes\n- web page added\n",
				"web/index.html": "<!doctype html>\n<html><body><script src=\"app.js\"></script></body></html>\n"},
			feedback: []string{"WRITE_BATCH_SUCCESS"}},
		{dialect: "mcp", name: "diff", files: map[string]string{"src/greet.ts": greetTS}, commits: 0,
			feedback: []string{"-  return `Hello, ${name}!`;", "+  return `Hello, ${name}.`;"}},
		{dialect: "mcp", name: "edit", files: map[string]string{"src/greet.ts": greetTS}, commits: 1,
			want:     map[string]string{"src/greet.ts": "export function greet(name: string): string {\n  return `Hi, ${name}!`;\n}\n"},
			feedback: []string{"WRITE_SUCCESS"}},
		{dialect: "mcp", name: "files", files: map[string]string{"build.sh": "#!/bin/sh\necho build\n", "tmp/x.log": "log\n"}, commits: 3,
			want: map[string]string{"build.sh": "", "scripts/ci/build.sh": "#!/bin/sh\necho build\n", "tmp": ""},
			check: func(t *testing.T, g *gittest.Repo) {
				if ls := g.Git("ls-tree", "HEAD", "scripts/ci/build.sh"); !strings.HasPrefix(ls, "100755 ") {
					t.Errorf("scripts/ci/build.sh is not executable in the commit: %s", ls)
				}
			}},
		{dialect: "mcp", name: "list", files: map[string]string{"src/app.ts": "x\n", "README.md": "r\n"}, commits: 0,
			feedback: []string{"src/", "src/app.ts", "README.md"}},
		{dialect: "mcp", name: "read", files: map[string]string{"src/app.ts": "const app = 1;\n", "README.md": "# Readme\n"}, commits: 0,
			feedback: []string{"const app = 1;", "# Readme", "sha256"}},
		{dialect: "mcp", name: "run", files: map[string]string{"package.json": "{}\n", "web/package.json": "{}\n"}, commits: 0,
			ran: []string{". npm test", "web npm run build"}},
		{dialect: "mcp", name: "search", files: map[string]string{"src/a.ts": "// TODO: split\nconst a = 1;\n", "src/b.ts": "const b = 2;\n"}, commits: 0,
			feedback: []string{"src/a.ts", "TODO: split"}},
		{dialect: "mcp", name: "tools", commits: 0,
			feedback: []string{"fs.read", "fs.writeBatch", "process.run", "shell.exec"}},
		{dialect: "mcp", name: "write", commits: 1,
			want:     map[string]string{"src/greet.ts": greetTS},
			feedback: []string{"WRITE_SUCCESS"}},

		// Axon
		{dialect: "axon", name: "checks", files: map[string]string{"config.json": "{\n    \"debug\": false\n}\n", "utils/helpers.py": "\n"}, commits: 1,
			want: map[string]string{"config.json": "{\n    \"debug\": true\n}\n"}},
		{dialect: "axon", name: "commit", files: map[string]string{"README.md": "# Tool\n\nVersion 1.1.0\n"}, commits: 1,
			want: map[string]string{"src/version.py": "VERSION = \"1.2.0\"\n", "README.md": "# Tool\n\nVersion 1.2.0\n"},
			check: func(t *testing.T, g *gittest.Repo) {
				if s := strings.TrimSpace(g.Git("log", "-1", "--format=%s")); s != "Release 1.2.0: version constant and README" {
					t.Errorf("the commit's subject is %q", s)
				}
			}},
		// check_cwd_match stops the plan where the repository is not the
		// path it names (exit 3, nothing changed), and lets it go on where
		// it is.
		{dialect: "axon", name: "cwd", commits: 0, exit: 3},
		{dialect: "axon", name: "cwd", commits: 0,
			edit: func(text, root string) string { return strings.Replace(text, "/home/user/project", root, 1) }},
		{dialect: "axon", name: "files", commits: 3,
			files: map[string]string{"CHANGELOG.md": "# Changes\n", "old/util.py": "def util():\n    pass\n", "old/notes.txt": "notes\n"},
			want: map[string]string{"CHANGELOG.md": "# Changes\n- debug mode on by default\n", "src/util.py": "def util():\n    pass\n",
				"old/util.py": "", "old/notes.txt": ""}},
		{dialect: "axon", name: "read", files: map[string]string{"src/main.py": "def main():\n    print('hi')\n"}, commits: 0,
			feedback: []string{"print('hi')", "src/main.py", "Read the entry point before changing it."}},
		{dialect: "axon", name: "replace", files: map[string]string{"src/main.py": "def hello():\n    pass\n"}, commits: 1,
			want: map[string]string{"src/main.py": "def hello():\n    print(\"hello\")\n"}},
		{dialect: "axon", name: "run", commits: 0,
			ran:      []string{". python -m pytest -q"},
			feedback: []string{"1 passed"}},
		{dialect: "axon", name: "write", commits: 1,
			want: map[string]string{"docs/guide.md": "# Guide\n\nRun the script:\n```sh\npython main.py\n```\n"}},
	}
	// The edit formats: the same small program in each, changed as the
	// prompt shows; reads and programs are Axon's acts.
	greet := "def greet(name):\n    print(\"hello \" + name)\n"
	greeted := "def greet(name):\n    print(f\"hello, {name}!\")\n"
	main := "from app.greet import greet\n\ndef main():\n    greet(\"world\")\n"
	mainBoth := "from app.greet import greet\nfrom app.farewell import farewell\n\ndef main():\n    greet(\"world\")\n    farewell(\"world\")\n"
	farewell := "def farewell(name):\n    print(f\"goodbye, {name}!\")\n"
	for _, d := range []string{"apply_patch", "search-replace", "udiff"} {
		cs = append(cs,
			exampleCase{dialect: d, name: "read", files: map[string]string{"app/main.py": main}, commits: 0,
				feedback: []string{"greet(\"world\")"}},
			exampleCase{dialect: d, name: "run", commits: 0, ran: []string{". python -m pytest -q"}, feedback: []string{"1 passed"}})
	}
	cs = append(cs,
		exampleCase{dialect: "apply_patch", name: "update", files: map[string]string{"app/greet.py": greet}, commits: 1,
			want: map[string]string{"app/greet.py": greeted}, feedback: []string{"Success. Updated the following files:", "M app/greet.py"}},
		exampleCase{dialect: "apply_patch", name: "several", files: map[string]string{"app/main.py": main, "app/old.py": "x = 1\n"}, commits: 1,
			want: map[string]string{"app/farewell.py": farewell, "app/main.py": mainBoth, "app/old.py": ""}},
		exampleCase{dialect: "apply_patch", name: "move", files: map[string]string{"app/util.py": "def helper():\n    return 1\n"}, commits: 1,
			want: map[string]string{"app/util.py": "", "app/helpers.py": "def helper():  # moved from util.py\n    return 1\n"}},
		exampleCase{dialect: "search-replace", name: "edit", files: map[string]string{"app/greet.py": greet}, commits: 1,
			want: map[string]string{"app/greet.py": greeted}, feedback: []string{"Applied edit to app/greet.py"}},
		exampleCase{dialect: "search-replace", name: "create", commits: 1, want: map[string]string{"app/farewell.py": farewell}},
		exampleCase{dialect: "search-replace", name: "several", files: map[string]string{"app/main.py": main}, commits: 2,
			want: map[string]string{"app/main.py": mainBoth}},
		exampleCase{dialect: "udiff", name: "edit", files: map[string]string{"app/greet.py": greet}, commits: 1,
			want: map[string]string{"app/greet.py": greeted}, feedback: []string{"Applied patch to 'app/greet.py' cleanly."}},
		exampleCase{dialect: "udiff", name: "several", files: map[string]string{"app/main.py": main}, commits: 1,
			want: map[string]string{"app/farewell.py": farewell, "app/main.py": mainBoth}},
	)
	return cs
}

// fakePrograms are the programs the examples run, as shell scripts that
// record where they ran and with which words (in the file $FAKE_LOG) and
// answer as the real ones would on these repositories.
var fakePrograms = map[string]string{
	"python": `case "$*" in *pytest*) echo "1 passed in 0.01s";; esac`,
	"npm":    `echo "npm $*: ok"`,
	// A server: it says where it listens and runs until it is stopped.
	"python3": `echo "Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ..."; exec sleep 3600`,
}

// TestPromptExamplesWork applies every example of every prompt, as a
// model's whole answer with programs allowed, in a repository holding what
// the example expects, and checks that it did what the prompt says: the
// files, the commits, the programs run, the answer.
func TestPromptExamplesWork(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake programs are shell scripts")
	}
	gittest.Isolate(t)
	examplesDir := filepath.Join("..", "..", "prompt", "examples")
	covered := map[string]bool{}
	for _, c := range exampleCases() {
		covered[c.dialect+"/"+c.name] = true
		for _, a := range c.also {
			covered[c.dialect+"/"+a] = true
		}
	}
	all, _ := filepath.Glob(filepath.Join(examplesDir, "*", "*.md"))
	if len(all) < 20 {
		t.Fatalf("found %d examples under %s", len(all), examplesDir)
	}
	for _, f := range all {
		name := filepath.Base(filepath.Dir(f)) + "/" + strings.TrimSuffix(filepath.Base(f), ".md")
		if !covered[name] {
			t.Errorf("no case applies the example %s", name)
		}
	}
	for i, c := range exampleCases() {
		t.Run(fmt.Sprintf("%s/%s-%d", c.dialect, c.name, i), func(t *testing.T) {
			t.Parallel()
			var text string
			for _, n := range append([]string{c.name}, c.also...) {
				b, err := os.ReadFile(filepath.Join(examplesDir, c.dialect, n+".md"))
				must(t, err)
				text += string(b) + "\n"
			}
			applyExample(t, c, text)
		})
	}
}

func applyExample(t *testing.T, c exampleCase, text string) {
	files := map[string]string{"README.md": "# Project\n"}
	for p, s := range c.files {
		files[p] = s
	}
	g := gittest.NewWithCommit(t, files)
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "ran.log")
	for name, body := range fakePrograms {
		script := fmt.Sprintf("#!/bin/sh\nd=$(pwd -P)\nprintf '%%s %%s\\n' \"${d#%s}\" %q\" $*\" >> %q\n%s\n", g.Dir, name, log, body)
		must(t, os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755))
	}
	if c.edit != nil {
		text = c.edit(text, g.Dir)
	}
	resp := filepath.Join(t.TempDir(), "answer.md")
	fb := filepath.Join(t.TempDir(), "feedback.md")
	must(t, os.WriteFile(resp, []byte(text), 0o666))
	before := g.Snapshot()
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
	out, err := autocoder(t, g.Dir, env, "apply", "--allow-programs", "--format", "json", "--feedback", fb, resp)
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(interface{ ExitCode() int }); ok {
			code = ee.ExitCode()
		}
	}
	if code != c.exit {
		t.Fatalf("exit %d, want %d\n%s", code, c.exit, out)
	}
	if c.exit != 0 {
		g.AssertUnchanged(before)
		return
	}
	var rep struct {
		Results []struct {
			StepID, Status string
			Programs       []struct{ Name, Status string }
		}
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &rep); err != nil {
		t.Fatalf("the report: %v\n%s", err, out)
	}
	for _, r := range rep.Results {
		if r.Status != "applied" && r.Status != "read" && r.Status != "unchanged" {
			t.Errorf("step %s: %s\n%s", r.StepID, r.Status, out)
		}
		for _, p := range r.Programs {
			if p.Status != "success" && p.Status != "running" && p.Status != "terminated" {
				t.Errorf("step %s: program %s: %s\n%s", r.StepID, p.Name, p.Status, out)
			}
		}
	}
	n := 0
	if ref := strings.TrimSpace(g.Git("branch", "--list", "autocoder/main")); ref != "" {
		n = len(strings.Fields(g.Git("rev-list", "main..autocoder/main")))
	}
	if n != c.commits {
		t.Errorf("%d commits on the work branch, want %d:\n%s", n, c.commits, g.Git("log", "--all", "--oneline"))
	}
	paths := make([]string, 0, len(c.want))
	for p := range c.want {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		got, ok := g.Read(p)
		switch want := c.want[p]; {
		case want == "" && ok:
			t.Errorf("%s is still there", p)
		case want == "" && !ok:
			if _, err := os.Stat(filepath.Join(g.Dir, p)); err == nil {
				t.Errorf("%s is still there", p)
			}
		case got != want:
			t.Errorf("%s holds %q, want %q", p, got, want)
		}
	}
	ranB, _ := os.ReadFile(log)
	ran := strings.Split(strings.TrimSpace(string(ranB)), "\n")
	for _, want := range c.ran {
		found := false
		for _, l := range ran {
			if strings.TrimPrefix(strings.TrimSpace(l), "/") == want || (strings.HasPrefix(want, ". ") && strings.TrimSpace(l) == want[2:]) {
				found = true
			}
		}
		if !found {
			t.Errorf("the program %q did not run; the fakes ran: %q\n%s", want, ran, out)
		}
	}
	fbText, _ := os.ReadFile(fb)
	for _, want := range c.feedback {
		if !strings.Contains(string(fbText), want) {
			t.Errorf("the answer does not hold %q:\n%s", want, fbText)
		}
	}
	if st := g.Status(); strings.TrimSpace(st) != "" {
		t.Errorf("git status is not clean after the example:\n%s", st)
	}
	g.Fsck()
	if c.check != nil {
		c.check(t, g)
	}
}
