package main

// The bad-input suite (issue 8, item 9): hostile and careless responses in
// all three dialects, each run in-process against a fresh copy of one
// template repository. Every case asserts the exit code, a message that
// names the problem and a hint, the repository unchanged byte for byte
// (worktree, index, refs, HEAD) where the input is refused, nothing written
// outside the repository, and a bounded time.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
)

type badCase struct {
	name     string
	response string
	code     int
	why      string // a piece of the message that names the problem
	refused  bool   // the repository must be unchanged byte for byte
}

func jsonStr(s string) string { b, _ := json.Marshal(s); return string(b) }

// The three dialects' ways of writing, reading and running.
func acWrite(path string) string {
	return "#####--\n{\"file_operations\": [{\"action_type\": \"create_file\", \"path\": " + jsonStr(path) + ", \"file_content\": \"x\\n\"}]}\n--#####\n"
}
func acRead(path string) string {
	return "#####--\n{\"file_operations\": [{\"action_type\": \"read_file\", \"path\": " + jsonStr(path) + "}]}\n--#####\n"
}
func acRun(cmd string) string {
	return "#####--\n{\"program_operations\": [{\"command\": " + jsonStr(cmd) + "}]}\n--#####\n"
}
func mcpCall(tool string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "1", "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	return "```mcp-request\n" + string(b) + "\n```\n"
}
func mcpWrite(path string) string {
	return mcpCall("fs.write", map[string]any{"path": path, "mode": "overwrite", "content": "x\n"})
}
func mcpRead(path string) string { return mcpCall("fs.read", map[string]any{"path": path}) }
func axWrite(path string) string {
	return "~~~~~act\nwrite_file\n~~~~~\n~~~~~path\n" + path + "\n~~~~~\n~~~~~text\nx\n~~~~~\n"
}
func axRead(path string) string {
	return "~~~~~act\nread_file\n~~~~~\n~~~~~path\n" + path + "\n~~~~~\n"
}
func axRun(cmd string) string { return "~~~~~act\nrun_command " + cmd + "\n~~~~~\n" }

func badCases() []badCase {
	var cs []badCase
	// Paths every dialect must refuse for writing (exit 4), with why.
	paths := []struct{ path, why string }{
		{"../escape.txt", "leaves the repository"},
		{"dir/../../escape.txt", "leaves the repository"},
		{"/etc/passwd-autocoder", "outside the repository"},
		{".git/config", ".git"},
		{".GIT/hooks/pre-commit", ".git"},
		{"sub/.git/x", ".git"},
		{".git./hooks/x", ".git"},
		{"GIT~1/config", ".git"},
		{`.git\hooks\pre-commit`, `\`},
		{`GIT~1\config`, `\`},
		{`..\escape.txt`, `\`},
		{`\\server\share\x.txt`, `network path`},
		{"C:/x.txt", "drive letter"},
		{"c:x.txt", "drive letter"},
		{"~/x.txt", "home folder"},
		{"$HOME/x.txt", "shell variable"},
		{"${HOME}/x.txt", "shell variable"},
		{"a\tb.txt", "control character"},
		{"a\x1b[2Jb.txt", "control character"},
		{"a\rb.txt", "control character"},
		{"\u202egnp.txt", "control character"},
		{"outdir/x.txt", "symbolic link"},
		{"inner/x.txt", "another repository"},
		{".env", "denies"},
		{"keys/id.pem", "denies"},
		{"autocoder.toml", "denies"},
	}
	for _, p := range paths {
		cs = append(cs,
			badCase{"acjson write " + p.path, acWrite(p.path), 4, p.why, true},
			badCase{"mcp write " + p.path, mcpWrite(p.path), 4, p.why, true})
		if !strings.ContainsAny(p.path, "\r\n") {
			cs = append(cs, badCase{"axon write " + p.path, axWrite(p.path), 4, p.why, true})
		}
	}
	// Reads that must not show what is outside, denied or another repository's.
	reads := []struct{ path, why string }{
		{"link.txt", "outside the repository"},
		{"outdir/secret.txt", "outside the repository"},
		{".env", "denies"},
		{"inner/a.txt", "another repository"},
		{".git/config", ".git"},
		{"../outside/secret.txt", "leaves the repository"},
	}
	for _, r := range reads {
		cs = append(cs,
			badCase{"acjson read " + r.path, acRead(r.path), 4, r.why, true},
			badCase{"mcp read " + r.path, mcpRead(r.path), 4, r.why, true},
			badCase{"axon read " + r.path, axRead(r.path), 4, r.why, true})
	}
	// Programs that would widen their permission (autocoder.toml allows
	// "go test", "git status", "echo").
	runs := []struct{ cmd, why string }{
		{"go test -exec ./evil.sh ./...", "-exec"},
		{"go test -toolexec=./evil.sh", "-toolexec"},
		{"git status --output=../leak.txt", "--output"},
		{"go test *", "glob"},
		{"echo ~", "tilde"},
		{"echo {a,b}", "brace"},
		{"echo $HOME", "expansion"},
		{"echo hi; touch ../pwned", "not one simple command"},
		{"echo hi > ../pwned", "not one simple command"},
		{"rm -rf /", "none of the"},
	}
	for _, r := range runs {
		cs = append(cs,
			badCase{"acjson run " + r.cmd, acRun(r.cmd), 4, r.why, true},
			badCase{"axon run " + r.cmd, axRun(r.cmd), 4, r.why, true},
			badCase{"mcp run " + r.cmd, mcpCall("shell.exec", map[string]any{"command": r.cmd}), 4, r.why, true})
	}
	envs := []struct {
		env map[string]string
		why string
	}{
		{map[string]string{"PATH": "tools:/usr/bin:/bin"}, "PATH"},
		{map[string]string{"LD_PRELOAD": "./x.so"}, "LD_PRELOAD"},
		{map[string]string{"GIT_CONFIG_COUNT": "1"}, "GIT_CONFIG_COUNT"},
		{map[string]string{"GOFLAGS": "-exec=./x"}, "GOFLAGS"},
		{map[string]string{"UNKNOWN_KEY": "1"}, "UNKNOWN_KEY"},
	}
	for _, e := range envs {
		cs = append(cs, badCase{"mcp env " + e.why, mcpCall("process.run", map[string]any{"command": "echo", "args": []string{"hi"}, "env": e.env}), 4, e.why, true})
	}
	cs = append(cs, badCase{"mcp cwd through a link out", mcpCall("process.run", map[string]any{"command": "echo", "args": []string{"hi"}, "cwd": "outdir"}), 4, "outside the repository", true})
	// Content kept or refused.
	cs = append(cs,
		badCase{"acjson invalid UTF-8", "#####--\n{\"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"u.txt\", \"file_content\": \"caf\xe9\"}]}\n--#####\n", 2, "not UTF-8", true},
		badCase{"mcp invalid UTF-8", "```mcp-request\n{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"tools/call\",\"params\":{\"name\":\"fs.write\",\"arguments\":{\"path\":\"u.txt\",\"mode\":\"overwrite\",\"content\":\"caf\xe9\"}}}\n```\n", 2, "not UTF-8", true},
		badCase{"acjson over max_file_bytes", "#####--\n{\"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"big.txt\", \"file_content\": \"" + strings.Repeat("x", 2100) + "\"}]}\n--#####\n", 4, "max_file_bytes", true},
		badCase{"mcp over max_file_bytes", mcpCall("fs.write", map[string]any{"path": "big.txt", "mode": "overwrite", "content": strings.Repeat("x", 2100)}), 4, "max_file_bytes", true},
		badCase{"axon over max_file_bytes", "~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nbig.txt\n~~~~~\n~~~~~text\n" + strings.Repeat("x", 2100) + "\n~~~~~\n", 4, "max_file_bytes", true},
		badCase{"mcp same path twice", mcpCall("fs.writeBatch", map[string]any{"files": []map[string]any{{"path": "x.txt", "content": "1"}, {"path": "./x.txt", "content": "2"}}}), 1, `"./x.txt"`, true},
		badCase{"acjson content onto a folder", acWrite("dir"), 1, "is a folder", true},
		badCase{"mcp content onto a folder", mcpWrite("dir"), 1, "is a folder", true},
		badCase{"axon content onto a folder", axWrite("dir"), 1, "is a folder", true},
		badCase{"acjson unclosed block", "#####--\n{\"file_operations\": [\n", 2, "no closing --#####", true},
		badCase{"no block at all", "just prose, no instructions\n", 2, "no instruction block found", true},
	)
	return cs
}

func TestBadInputSuite(t *testing.T) {
	gittest.Isolate(t)
	cases := badCases()
	if len(cases) < 100 {
		t.Fatalf("%d cases, want at least 100", len(cases))
	}
	template := badTemplate(t)
	for i, tc := range cases {
		t.Run(fmt.Sprintf("%03d %s", i, strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f || r == '/' {
				return '_'
			}
			return r
		}, tc.name)), func(t *testing.T) {
			root := t.TempDir()
			if out, err := exec.Command("cp", "-a", template+"/.", root).CombinedOutput(); err != nil {
				t.Fatalf("copy the template: %v\n%s", err, out)
			}
			repo := filepath.Join(root, "repo")
			resp := filepath.Join(root, "response.md")
			os.WriteFile(resp, []byte(tc.response), 0o644)
			before, err := gittest.TakeSnapshot(repo)
			if err != nil {
				t.Fatal(err)
			}
			outside := listTree(t, root, repo)
			var stdout, stderr bytes.Buffer
			start := time.Now()
			code := run([]string{"autocoder", "-C", repo, "apply", resp}, strings.NewReader(""), &stdout, &stderr)
			if el := time.Since(start); el > 10*time.Second {
				t.Errorf("took %v", el)
			}
			msg := stdout.String() + stderr.String()
			if code != tc.code {
				t.Errorf("exit code %d, want %d\n%s", code, tc.code, msg)
			}
			if !strings.Contains(msg, tc.why) {
				t.Errorf("the message does not say %q:\n%s", tc.why, msg)
			}
			if !strings.Contains(stderr.String(), "autocoder: hint: ") {
				t.Errorf("no hint saying what to do:\n%s", msg)
			}
			if tc.refused {
				after, err := gittest.TakeSnapshot(repo)
				if err != nil {
					t.Fatal(err)
				}
				if d := before.Diff(after, true); len(d) > 0 {
					t.Errorf("the repository changed:\n%s", strings.Join(d, "\n"))
				}
			}
			if got := listTree(t, root, repo); got != outside {
				t.Errorf("something was written outside the repository:\nbefore:\n%s\nafter:\n%s", outside, got)
			}
			if out, err := exec.Command("git", "-C", repo, "fsck", "--strict", "--no-dangling", "--no-progress").CombinedOutput(); err != nil {
				t.Errorf("git fsck --strict: %v\n%s", err, out)
			}
		})
	}
}

// badTemplate is the one repository every case copies: tracked files, a
// denied .env and key, a tracked link to a secret outside and one to a
// folder outside, a clone nested inside, and an autocoder.toml that allows
// three programs and a small max_file_bytes.
func badTemplate(t *testing.T) string {
	root := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "outside"), 0o755))
	must(os.WriteFile(filepath.Join(root, "outside", "secret.txt"), []byte("TOPSECRET\n"), 0o644))
	g := &gittest.Repo{T: t, Dir: filepath.Join(root, "repo")}
	must(os.MkdirAll(g.Dir, 0o755))
	g.Git("init", "-q", "-b", "main")
	g.Write("a.txt", "a\n")
	g.Write("dir/b.txt", "b\n")
	g.Write(".env", "KEY=1\n")
	g.Write("keys/id.pem", "PEM\n")
	g.Write("autocoder.toml", "[apply]\nmax_file_bytes = 2000\n[programs]\nenabled = true\nallow = [\"go test\", \"git status\", \"echo\"]\n")
	must(os.Symlink("../outside/secret.txt", filepath.Join(g.Dir, "link.txt")))
	must(os.Symlink("../outside", filepath.Join(g.Dir, "outdir")))
	g.Git("add", "-A")
	g.Git("commit", "-qm", "initial")
	g.Git("clone", "-q", g.Dir, filepath.Join(g.Dir, "inner"))
	must(os.WriteFile(filepath.Join(g.Dir, ".git", "info", "exclude"), []byte("inner/\n"), 0o644))
	return root
}

// listTree lists every path under root but those inside the repository,
// with sizes: what a case may not change.
func listTree(t *testing.T, root, repo string) string {
	var b strings.Builder
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if p == repo {
			return filepath.SkipDir
		}
		fmt.Fprintf(&b, "%s %d\n", strings.TrimPrefix(p, root), fi.Size())
		return nil
	})
	return b.String()
}
