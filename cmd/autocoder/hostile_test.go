package main

// The bad-input suite (issue 8): responses a careless or hostile model
// could write, in every dialect, each applied to a fresh copy of one
// template repository. Every case asserts the exit code, a message that
// names the problem (and, on failure, an "autocoder: hint:" line), the
// repository unchanged byte for byte where the input is refused, nothing
// written beside the repository (a sentinel folder and the case's own
// folder), no raw control character on the terminal, `git fsck --strict`
// clean, and a bound on CPU time that only guards against a runaway.
//
// The inputs are written by the table below and kept as golden files in
// testdata/hostile/ (go test -run TestHostile -update rewrites them), so
// that a reader sees each hostile response as it is and the fuzzers can
// take them as seeds. @OUTSIDE@ and @REPO@ stand for the sentinel folder
// and the repository of the case.

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/internal/golden"
	"github.com/autocoder/autocoder/termsafe"
)

// hostileCase is one bad input and what autocoder must do with it.
type hostileCase struct {
	name  string // the golden input is testdata/hostile/<name>.md
	input string
	args  []string // extra apply flags
	// feedbackOut writes the feedback to standard output (--feedback -),
	// where a terminal shows it, instead of to a file.
	feedbackOut bool
	setup       func(t *testing.T, repo string)
	exit        int
	want        []string // regexps the output (stdout, stderr, feedback) must match
	not         []string // regexps it must not match (secrets, followed links)
	// changes lists the paths a step may change (accepted inputs); nil
	// means the repository must be unchanged byte for byte.
	changes []string
	check   func(t *testing.T, repo string)
}

// The template repository every case copies. link.txt and linkdir are
// tracked symbolic links out of the repository; .env and certs/server.pem
// are tracked files the deny list covers; tools/go is a fake program that
// leaves a mark beside the repository if it ever runs.
var hostileTemplate = map[string]string{
	"README.md":        "hello\n",
	"src/main.go":      "package main\n\nfunc main() {}\n",
	"docs/guide.md":    "guide\n",
	".env":             "KEY=topsecret-env\n",
	"certs/server.pem": "topsecret-pem\n",
	"tools/go":         "#!/bin/sh\ntouch \"$(dirname \"$0\")/../../pwned\"\n",
	"autocoder.toml": `[apply]
max_file_bytes = 1048576
max_response_bytes = 2097152

[programs]
enabled = true
allow = ["go test", "git status", "git diff", "git log", "git fetch", "echo"]
timeout = "10s"
`,
}

const hostileSecret = "topsecret-outside"

func TestHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("applies every hostile input: slow; runs without -short")
	}
	t.Parallel()
	tmpl := gittest.New(t)
	for p, c := range hostileTemplate {
		tmpl.Write(p, c)
	}
	os.Chmod(filepath.Join(tmpl.Dir, "tools/go"), 0o755)
	must(t, os.Symlink("../outside/secret.txt", filepath.Join(tmpl.Dir, "link.txt")))
	must(t, os.Symlink("../outside", filepath.Join(tmpl.Dir, "linkdir")))
	tmpl.Git("add", "-A")
	tmpl.Git("commit", "-q", "-m", "initial")
	// Every copy starts as the template is: a case without a setup of its
	// own compares against this one snapshot (the index byte for byte).
	tmplSnap := tmpl.Snapshot()

	cases := hostileCases()
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("two cases named %s", c.name)
		}
		seen[c.name] = true
	}
	// An input file no case reads would look covered and be dead.
	files, _ := os.ReadDir(filepath.Join("testdata", "hostile"))
	for _, f := range files {
		if !seen[strings.TrimSuffix(f.Name(), ".md")] && !golden.Updating() {
			t.Errorf("testdata/hostile/%s belongs to no case: delete it or add its case", f.Name())
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// The large shapes are read from the table only: megabytes of
			// repeated lines say nothing more in a file.
			if len(c.input) < 64<<10 {
				golden.Check(t, filepath.Join("testdata", "hostile", c.name+".md"), []byte(c.input))
			}
			runHostile(t, tmpl.Dir, tmplSnap, c)
		})
	}
}

// appMu serialises in-process runs of the app (see runHostile).
var appMu sync.Mutex

func runHostile(t *testing.T, tmpl string, tmplSnap gittest.Snapshot, c hostileCase) {
	base := t.TempDir()
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	repo := filepath.Join(base, "repo")
	outside := filepath.Join(base, "outside")
	copyTree(t, tmpl, repo)
	// The template's autocoder.toml turns programs on; a repository's file
	// counts only once its user trusted it, and each copy is another path.
	toml := filepath.Join(repo, "autocoder.toml")
	data, err := os.ReadFile(toml)
	must(t, err)
	must(t, config.UserDirs().Trust(toml, config.Sum(data)))
	must(t, os.MkdirAll(filepath.Join(outside, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(hostileSecret+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(outside, "sub", "deep.txt"), []byte(hostileSecret+"-deep\n"), 0o644))
	r := &gittest.Repo{T: t, Dir: repo}
	before := tmplSnap
	if c.setup != nil {
		c.setup(t, repo)
		before = r.Snapshot()
	}
	outBefore := treeSum(t, outside)

	in := strings.NewReplacer("@OUTSIDE@", outside, "@REPO@", repo).Replace(c.input)
	inFile := filepath.Join(base, "in.md")
	fbFile := filepath.Join(base, "feedback.out")
	must(t, os.WriteFile(inFile, []byte(in), 0o644))
	fbArg := fbFile
	if c.feedbackOut {
		fbArg = "-"
	}
	args := append([]string{"autocoder", "-C", repo, "apply", "--feedback", fbArg}, c.args...)
	args = append(args, inFile)

	var stdout, stderr bytes.Buffer
	started, done := make(chan time.Duration, 1), make(chan int, 1)
	go func() {
		// One run at a time: urfave/cli applies its package-level HelpFlag
		// and help command to every app it runs, so two apps in one process
		// write the same variables (go test -race sees it). The program
		// runs one app per process; the cases' setup and checks stay parallel.
		appMu.Lock()
		defer appMu.Unlock()
		started <- processCPU()
		done <- run(args, strings.NewReader(""), &stdout, &stderr)
	}()
	// A guard against a runaway, not a speed target: the bound is generous,
	// and on the CPU time the process spends while this case runs, which a
	// loaded machine or the race detector's pauses do not stretch as they
	// stretch the wall clock (TestHostile failed on "apply did not finish
	// within 20s" under -race on a busy machine). A run that waits for
	// nothing forever is go test's -timeout's to catch.
	const cpuBound = 60 * time.Second // the race detector multiplies CPU time too
	start := <-started
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var code int
wait:
	for {
		select {
		case code = <-done:
			break wait
		case <-tick.C:
			if used := processCPU() - start; used > cpuBound {
				t.Fatalf("apply used %s of CPU time and has not finished", used)
			}
		}
	}
	fb, _ := os.ReadFile(fbFile)
	out := stdout.String() + stderr.String() + string(fb)
	show := func() string {
		const max = 4000
		s := "stdout:\n" + stdout.String() + "\nstderr:\n" + stderr.String() + "\nfeedback:\n" + string(fb)
		if len(s) > max {
			s = s[:max] + "…"
		}
		return s
	}

	if code != c.exit {
		t.Errorf("exit code %d, want %d\n%s", code, c.exit, show())
	}
	for _, w := range c.want {
		if !regexp.MustCompile(w).MatchString(out) {
			t.Errorf("the output does not match %q\n%s", w, show())
		}
	}
	for _, n := range c.not {
		if regexp.MustCompile(n).MatchString(out) {
			t.Errorf("the output matches %q, which it must not\n%s", n, show())
		}
	}
	if code != 0 && !regexp.MustCompile(`(?m)hint: \S`).MatchString(stderr.String()) {
		t.Errorf("exit %d without a hint on stderr\n%s", code, show())
	}
	// The terminal gets no raw control character from the response.
	for _, s := range []string{stdout.String(), stderr.String()} {
		if i := strings.IndexFunc(s, terminalActs); i >= 0 {
			r, _ := utf8.DecodeRuneInString(s[i:])
			t.Errorf("a raw control character %U reached the terminal at byte %d\n%s", r, i, show())
		}
	}

	if c.changes == nil {
		r.AssertUnchanged(before)
	} else {
		after := r.Snapshot()
		allowed := map[string]bool{}
		for _, p := range c.changes {
			allowed[p] = true
		}
		for p, v := range before.Files {
			if !allowed[p] && after.Files[p] != v {
				t.Errorf("%s changed (%q -> %q), though the step does not touch it", p, v, after.Files[p])
			}
		}
		for p := range after.Files {
			if _, ok := before.Files[p]; !ok && !allowed[p] {
				t.Errorf("new file %s, which the step does not write", p)
			}
		}
	}
	if got := treeSum(t, outside); got != outBefore {
		t.Errorf("the folder beside the repository changed:\nbefore %s\nafter  %s", outBefore, got)
	}
	ents, _ := os.ReadDir(base)
	for _, e := range ents {
		switch e.Name() {
		case "repo", "outside", "in.md", "feedback.out":
		default:
			t.Errorf("%s was written beside the repository", e.Name())
		}
	}
	r.Fsck()
	if c.check != nil {
		c.check(t, repo)
	}
}

// terminalActs reports the runes a terminal acts on or shows out of order
// (C0 but line break and tab, DEL, C1, bidirectional overrides and
// isolates): written here, not taken from termsafe, so that the suite
// judges termsafe rather than repeats it.
func terminalActs(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// treeSum is every file under dir with its mode and hash, as one string.
func treeSum(t *testing.T, dir string) string {
	var lines []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		var data []byte
		if fi.Mode().IsRegular() {
			data, _ = os.ReadFile(p)
		}
		lines = append(lines, fmt.Sprintf("%s %v %x", rel, fi.Mode(), sha256.Sum256(data)))
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "; ")
}

// copyTree copies the template repository, its links as links and its
// files' permission bits.
func copyTree(t *testing.T, from, to string) {
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.IsDir():
			return os.MkdirAll(dst, fi.Mode().Perm()|0o700)
		case fi.Mode()&os.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, dst)
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, b, fi.Mode().Perm())
		}
	})
	must(t, err)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// --- writing the inputs ---------------------------------------------------

// js is a JSON string literal; invalid UTF-8 is not its business.
func js(s string) string {
	b, _ := json.Marshal(s)
	// Keep < > & as written: the inputs are read by people too.
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b))
}

func hAcBlock(body string) string {
	return "The change:\n\n#####--\n{\"metadata\": {\"step_id\": \"s1\", \"reason\": \"hostile\"},\n" + body + "}\n--#####\n"
}

func hAcWrite(path, content string) string {
	return hAcBlock(`"file_operations": [{"action_type": "create_file", "path": ` + js(path) + `, "file_content": ` + js(content) + `}]` + "\n")
}

func hAcOp(action, path string) string {
	return hAcBlock(`"file_operations": [{"action_type": "` + action + `", "path": ` + js(path) + `}]` + "\n")
}

func hAcProgram(command string) string {
	return hAcBlock(`"program_operations": [{"name": "p", "command": ` + js(command) + `, "set_timeout": 10}]` + "\n")
}

func hMcpCall(tool string, args string) string {
	return "```mcp-request\n{\"jsonrpc\":\"2.0\",\"id\":\"h1\",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":" + args + "}}\n```\n"
}

func hMcpArgs(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		v := kv[i+1]
		if !strings.HasPrefix(v, "[") && !strings.HasPrefix(v, "{") && v != "true" && v != "false" && strings.Trim(v, "0123456789") != "" {
			v = js(v)
		}
		parts = append(parts, js(kv[i])+":"+v)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func hMcpWrite(path, content string) string {
	return hMcpCall("fs.write", hMcpArgs("path", path, "mode", "overwrite", "content", content))
}

// hAxAct is an act whose arguments are blocks, so that any byte of a path
// reaches the act as written (no shell-word splitting in between).
func hAxAct(act string, blocks ...string) string {
	s := "~~~~~act\n" + act + "\n~~~~~\n"
	for _, b := range blocks {
		s += "~~~~~\n" + b + "\n~~~~~\n"
	}
	return s
}

func hAxWrite(path, content string) string { return hAxAct("write_file", path, content) }

func hAxRun(command string) string { return "~~~~~act\nrun_command " + command + "\n~~~~~\n" }

// --- the cases --------------------------------------------------------------

// refusedMsg is what a refused path's message names, per class.
const (
	msgOutside = `outside the repository|leaves the repository`
	msgGit     = `\.git`
)

func hostileCases() []hostileCase {
	var cs []hostileCase
	add := func(c hostileCase) { cs = append(cs, c) }

	// Hostile paths, written in each dialect. Each is refused (exit 4)
	// before anything is written, with a message naming why.
	type hp struct {
		name, path, why string
		exit            int
	}
	paths := []hp{
		{"dotdot", "../escape.txt", msgOutside, 4},
		{"dotdot-inner", "src/../../escape.txt", msgOutside, 4},
		{"abs-outside", "@OUTSIDE@/new.txt", msgOutside, 4},
		{"abs-outside-existing", "@OUTSIDE@/secret.txt", msgOutside, 4},
		{"symlink-file", "link.txt", `symbolic link`, 4},
		{"symlink-dir", "linkdir/new.txt", `symbolic link`, 4},
		{"symlink-dir-existing", "linkdir/secret.txt", `symbolic link`, 4},
		{"git-config", ".git/config", msgGit, 4},
		{"git-upper", ".GIT/config", msgGit, 4},
		{"git-backslash-hook", `.git\hooks\pre-commit`, `\\`, 4},
		{"git-shortname", "GIT~1/config", `\.git`, 4},
		{"git-shortname-backslash", `GIT~1\config`, `\\`, 4},
		{"git-trailing-dot", ".GIT.", msgGit, 4},
		{"git-trailing-dot-dir", ".git./hooks/x", msgGit, 4},
		{"git-trailing-space", ".git /config", msgGit, 4},
		{"git-ntfs-stream", ".git::$INDEX_ALLOCATION/config", msgGit, 4},
		{"git-hfs-zwnj", ".g\u200cit/config", msgGit, 4},
		{"git-hfs-bom", "\ufeff.git/config", msgGit, 4},
		{"git-nested-dir", "src/.git/hooks/post-checkout", msgGit, 4},
		{"ctl-newline", "a\nb.txt", `control character|newline|\\n`, 4},
		{"ctl-tab", "a\tb.txt", `control character|tab|\\t`, 4},
		{"ctl-cr", "a\rb.txt", `control character|\\r`, 4},
		{"ctl-esc", "a\x1b[2Jb.txt", `control character|\\x1b|\\u001b|\\e`, 4},
		{"ctl-bidi", "\u202egnp.txt", `control character`, 4},
		{"tilde", "~/x.txt", `home folder`, 4},
		{"dollar-var", "$HOME/x.txt", `shell variable`, 4},
		{"dollar-brace", "${HOME}/x.txt", `shell variable`, 4},
		{"drive-letter", "C:/x.txt", `drive letter`, 4},
		{"drive-relative", "C:x.txt", `drive letter`, 4},
		{"unc", `\\server\share\x.txt`, `network path`, 4},
		{"dotdot-backslash", `..\x.txt`, `\\`, 4},
		{"denied-env", ".env", `denies`, 4},
		{"denied-pem", "certs/server.pem", `denies`, 4},
		{"denied-config", "autocoder.toml", `denies`, 4},
	}
	for _, p := range paths {
		add(hostileCase{name: "path-" + p.name + "-acjson", input: hAcWrite(p.path, "pwned\n"), exit: p.exit, want: []string{p.why}})
		add(hostileCase{name: "path-" + p.name + "-mcp", input: hMcpWrite(p.path, "pwned\n"), exit: p.exit, want: []string{p.why, `"code":-32003`}})
		if strings.Contains(p.path, "\n") {
			// An Axon path block is one line: a second line is not read as
			// part of the path, and the block is an error before any step.
			add(hostileCase{name: "path-" + p.name + "-axon", input: hAxWrite(p.path, "pwned"), exit: 2, want: []string{`path block holds more than one line`}})
			continue
		}
		add(hostileCase{name: "path-" + p.name + "-axon", input: hAxWrite(p.path, "pwned"), exit: p.exit, want: []string{p.why}})
	}

	// Another repository's work tree inside this one: a nested clone and
	// a linked worktree.
	nested := func(t *testing.T, repo string) {
		gitIn(t, repo, "init", "-q", "nested")
		must(t, os.WriteFile(filepath.Join(repo, "nested", "n.txt"), []byte("n\n"), 0o644))
	}
	worktree := func(t *testing.T, repo string) {
		gitIn(t, repo, "worktree", "add", "-q", "wt", "-b", "side")
	}
	for _, d := range []struct {
		name  string
		setup func(*testing.T, string)
		path  string
		why   string
	}{{"nested-repo", nested, "nested/n.txt", `another repository`}, {"linked-worktree", worktree, "wt/README.md", `repository|work tree|worktree`}} {
		add(hostileCase{name: "path-" + d.name + "-acjson", setup: d.setup, input: hAcWrite(d.path, "x\n"), exit: 4, want: []string{d.why}})
		add(hostileCase{name: "path-" + d.name + "-mcp", setup: d.setup, input: hMcpWrite(d.path, "x\n"), exit: 4, want: []string{d.why}})
		add(hostileCase{name: "path-" + d.name + "-axon", setup: d.setup, input: hAxWrite(d.path, "x"), exit: 4, want: []string{d.why}})
	}

	// Reads, listings, searches and diffs never follow a link out, and
	// never show what the deny list denies.
	secret := []string{hostileSecret}
	add(hostileCase{name: "read-symlink-acjson", input: hAcOp("read_file", "link.txt"), exit: 4, want: []string{`symbolic link`, msgOutside}, not: secret})
	add(hostileCase{name: "read-symlink-mcp", input: hMcpCall("fs.read", hMcpArgs("path", "link.txt")), exit: 4, want: []string{`symbolic link`, msgOutside}, not: secret})
	add(hostileCase{name: "read-symlink-axon", input: hAxAct("read_file", "link.txt"), exit: 4, want: []string{`symbolic link`, msgOutside}, not: secret})
	add(hostileCase{name: "read-symlink-dir-mcp", input: hMcpCall("fs.read", hMcpArgs("path", "linkdir/secret.txt")), exit: 4, want: []string{`symbolic link`, msgOutside}, not: secret})
	add(hostileCase{name: "read-outside-abs-mcp", input: hMcpCall("fs.read", hMcpArgs("path", "@OUTSIDE@/secret.txt")), exit: 4, want: []string{msgOutside}, not: secret})
	add(hostileCase{name: "read-symlink-dir-acjson", input: hAcOp("read_file", "linkdir/secret.txt"), exit: 4, want: []string{`symbolic link`, msgOutside}, not: secret})
	add(hostileCase{name: "read-symlink-dir-axon", input: hAxAct("read_file", "linkdir/secret.txt"), exit: 4, want: []string{`symbolic link`, msgOutside}, not: secret})
	add(hostileCase{name: "read-dotdot-acjson", input: hAcOp("read_file", "../outside/secret.txt"), exit: 4, want: []string{msgOutside}, not: secret})
	add(hostileCase{name: "read-dotdot-mcp", input: hMcpCall("fs.read", hMcpArgs("path", "../outside/secret.txt")), exit: 4, want: []string{msgOutside}, not: secret})
	add(hostileCase{name: "read-git-config-axon", input: hAxAct("read_file", ".git/config"), exit: 4, want: []string{msgGit}, not: []string{`repositoryformatversion`}})
	add(hostileCase{name: "read-nested-repo-acjson", setup: nested, input: hAcOp("read_file", "nested/n.txt"), exit: 4, want: []string{`another repository`}})
	add(hostileCase{name: "read-nested-repo-mcp", setup: nested, input: hMcpCall("fs.read", hMcpArgs("path", "nested/n.txt")), exit: 4, want: []string{`another repository`}})
	add(hostileCase{name: "read-nested-repo-axon", setup: nested, input: hAxAct("read_file", "nested/n.txt"), exit: 4, want: []string{`another repository`}})
	add(hostileCase{name: "read-dotdot-axon", input: hAxAct("read_file", "../outside/secret.txt"), exit: 4, want: []string{msgOutside}, not: secret})
	add(hostileCase{name: "read-git-config-acjson", input: hAcOp("read_file", ".git/config"), exit: 4, want: []string{msgGit}, not: []string{`repositoryformatversion`}})
	add(hostileCase{name: "read-git-upper-mcp", input: hMcpCall("fs.read", hMcpArgs("path", ".GIT/config")), exit: 4, want: []string{msgGit}, not: []string{`repositoryformatversion`}})
	add(hostileCase{name: "list-symlink-dir-acjson", input: hAcOp("list_tree", "linkdir"), exit: 4, want: []string{`symbolic link`}, not: []string{`deep\.txt`}})
	add(hostileCase{name: "list-symlink-dir-mcp", input: hMcpCall("fs.ls", hMcpArgs("path", "linkdir", "depth", "3")), exit: 4, want: []string{`symbolic link`}, not: []string{`deep\.txt`}})
	add(hostileCase{name: "list-symlink-dir-axon", input: hAxAct("list_files", "linkdir"), exit: 4, want: []string{`symbolic link`}, not: []string{`deep\.txt`}})
	add(hostileCase{name: "list-git-mcp", input: hMcpCall("fs.ls", hMcpArgs("path", ".git")), exit: 4, want: []string{msgGit}, not: []string{`HEAD`}})
	add(hostileCase{name: "search-symlink-dir-mcp", input: hMcpCall("fs.search", hMcpArgs("path", "linkdir", "query", "topsecret")), exit: 4, want: []string{`symbolic link`}, not: secret})
	add(hostileCase{name: "search-symlink-dir-axon", input: hAxAct("search_files", "topsecret", "linkdir"), exit: 4, want: []string{`symbolic link`}, not: secret})
	add(hostileCase{name: "diff-symlink-mcp", input: hMcpCall("fs.diff", hMcpArgs("leftPath", "link.txt", "rightContent", "x\n")), exit: 4, want: []string{`symbolic link`}, not: secret})
	add(hostileCase{name: "diff-right-symlink-mcp", input: hMcpCall("fs.diff", hMcpArgs("leftPath", "README.md", "rightPath", "link.txt")), exit: 4, want: []string{`symbolic link`}, not: secret})
	// The root itself is listed and searched, and what is denied, linked
	// out or inside .git is left out of it.
	rootNot := []string{hostileSecret, `topsecret-env`, `topsecret-pem`, `server\.pem`, `repositoryformatversion`}
	add(hostileCase{name: "list-root-acjson", input: hAcOp("list_tree", "."), want: []string{`README\.md`}, not: append(rootNot, `\.env`)})
	add(hostileCase{name: "list-root-mcp", input: hMcpCall("fs.ls", hMcpArgs("path", ".", "depth", "5")), want: []string{`README\.md`}, not: append(rootNot, `\.env`, `deep\.txt`)})
	add(hostileCase{name: "list-root-axon", input: hAxAct("list_files", "."), want: []string{`README\.md`}, not: append(rootNot, `\.env`)})
	add(hostileCase{name: "search-root-mcp", input: hMcpCall("fs.search", hMcpArgs("path", ".", "query", "topsecret")), not: rootNot})
	add(hostileCase{name: "search-root-regex-mcp", input: hMcpCall("fs.search", hMcpArgs("path", ".", "query", ".", "regex", "true")), want: []string{`README\.md`}, not: rootNot})
	add(hostileCase{name: "search-root-axon", input: hAxAct("search_files", "topsecret", "."), not: rootNot})
	add(hostileCase{name: "read-denied-env-mcp", input: hMcpCall("fs.read", hMcpArgs("path", ".env")), exit: 4, want: []string{`deny|denied`}, not: []string{`topsecret`}})
	add(hostileCase{name: "read-denied-pem-axon", input: hAxAct("read_file", "certs/server.pem"), exit: 4, want: []string{`deny|denied`}, not: []string{`topsecret`}})
	add(hostileCase{name: "read-denied-env-acjson", input: hAcOp("read_file", ".env"), exit: 4, want: []string{`deny|denied`}, not: []string{`topsecret`}})

	// The same path twice in one step; content onto a folder.
	add(hostileCase{name: "twice-writebatch-mcp", input: hMcpCall("fs.writeBatch", `{"files":[{"path":"x.txt","content":"a\n","mode":"overwrite"},{"path":"./x.txt","content":"b\n","mode":"overwrite"}]}`), exit: 1, want: []string{`"x\.txt" and "\./x\.txt" name the same file`}})
	add(hostileCase{name: "twice-acjson", input: hAcBlock(`"file_operations": [{"action_type": "create_file", "path": "x.txt", "file_content": "a\n"}, {"action_type": "create_file", "path": "src/../x.txt", "file_content": "b\n"}]` + "\n"), exit: 1, want: []string{`name the same file`}})
	add(hostileCase{name: "folder-acjson", input: hAcWrite("docs", "x\n"), exit: 1, want: []string{`docs is a folder`}})
	add(hostileCase{name: "folder-mcp", input: hMcpWrite("docs", "x\n"), exit: 1, want: []string{`docs is a folder`}})
	add(hostileCase{name: "folder-axon", input: hAxWrite("docs", "x"), exit: 1, want: []string{`docs is a folder`}})
	add(hostileCase{name: "folder-root-mcp", input: hMcpWrite(".", "x\n"), exit: 4, want: []string{`root|folder`}})

	// Temporary names: a user's file or folder that looks like one of
	// autocoder's temporary files is never removed or overwritten.
	tmpObstacles := []struct {
		name  string
		setup func(*testing.T, string)
		keep  string
	}{
		{"tmp-untracked-file", func(t *testing.T, repo string) {
			must(t, os.WriteFile(filepath.Join(repo, ".autocoder-tmp-README.md"), []byte("mine\n"), 0o644))
		}, ".autocoder-tmp-README.md"},
		{"tmp-untracked-folder", func(t *testing.T, repo string) {
			must(t, os.MkdirAll(filepath.Join(repo, ".autocoder-tmp-README.md"), 0o755))
			must(t, os.WriteFile(filepath.Join(repo, ".autocoder-tmp-README.md", "keep.txt"), []byte("mine\n"), 0o644))
		}, ".autocoder-tmp-README.md/keep.txt"},
		{"tmp-token-lookalike", func(t *testing.T, repo string) {
			must(t, os.WriteFile(filepath.Join(repo, ".autocoder-tmp-0000000000000000-0"), []byte("mine\n"), 0o644))
		}, ".autocoder-tmp-0000000000000000-0"},
	}
	for _, o := range tmpObstacles {
		keep := o.keep
		check := func(t *testing.T, repo string) {
			b, err := os.ReadFile(filepath.Join(repo, keep))
			if err != nil || string(b) != "mine\n" {
				t.Errorf("the user's %s is gone or changed: %q, %v", keep, b, err)
			}
			b, _ = os.ReadFile(filepath.Join(repo, "README.md"))
			if string(b) != "new\n" {
				t.Errorf("README.md = %q, want the step's content", b)
			}
		}
		add(hostileCase{name: o.name + "-acjson", setup: o.setup, input: hAcWrite("README.md", "new\n"), changes: []string{"README.md"}, check: check})
		add(hostileCase{name: o.name + "-mcp", setup: o.setup, input: hMcpWrite("README.md", "new\n"), changes: []string{"README.md"}, check: check})
		add(hostileCase{name: o.name + "-axon", setup: o.setup, input: hAxWrite("README.md", "new"), changes: []string{"README.md"}, check: check})
	}
	// A tracked file named like a temporary one, with uncommitted edits:
	// writing README.md leaves it, edits and all.
	trackedTmp := func(t *testing.T, repo string) {
		must(t, os.WriteFile(filepath.Join(repo, ".autocoder-tmp-README.md"), []byte("committed\n"), 0o644))
		gitIn(t, repo, "add", ".autocoder-tmp-README.md")
		gitIn(t, repo, "commit", "-q", "-m", "a file with a temporary-looking name")
		must(t, os.WriteFile(filepath.Join(repo, ".autocoder-tmp-README.md"), []byte("mine\n"), 0o644))
	}
	add(hostileCase{name: "tmp-tracked-dirty-mcp", setup: trackedTmp, input: hMcpWrite("README.md", "new\n"), changes: []string{"README.md"},
		check: func(t *testing.T, repo string) {
			if b, _ := os.ReadFile(filepath.Join(repo, ".autocoder-tmp-README.md")); string(b) != "mine\n" {
				t.Errorf("the user's uncommitted edit is gone: %q", b)
			}
		}})

	// Programs cannot widen their own permission. tools/go is tracked and
	// would leave ../pwned beside the repository if it ran.
	type prog struct{ name, cmd, why string }
	progs := []prog{
		{"go-exec", "go test -exec tools/go ./...", `"-exec"`},
		{"go-toolexec", "go test -toolexec=tools/go ./...", `"-toolexec"`},
		{"git-c", "git -c core.fsmonitor=tools/go status", `allow entries|"-c"`},
		{"git-output", "git diff --output=../leak.txt", `"--output"`},
		{"git-upload-pack", "git fetch --upload-pack=tools/go .", `"--upload-pack"`},
		{"glob", "go test *", `glob`},
		{"subst", "go test $(tools/go)", `\$\(|substitution|simple command`},
		{"backquote", "go test `tools/go`", "`|substitution|simple command"},
		{"pipeline", "git status | sh", `\||pipe|simple command`},
		{"sequence", "git status; tools/go", `;|simple command`},
		{"and", "git status && tools/go", `&&|simple command`},
		{"redirect", "git status > ../leak.txt", `>|redirect|simple command`},
		{"env-prefix", "env GOFLAGS=-exec=tools/go go test", `allow entries|env`},
		{"assign-prefix", "GOFLAGS=-exec=tools/go go test", `GOFLAGS|assign|simple command|allow entries`},
		{"sh-c", `sh -c "git status"`, `allow entries`},
		{"not-allowed", "tools/go", `none of the \[programs\] allow entries`},
		{"go-run", "go run ./tools", `allow entries`},
		{"tilde", "echo ~", `tilde`},
		{"brace", "echo {a,b}", `brace`},
		{"var", "echo $HOME", `expansion`},
	}
	for _, p := range progs {
		add(hostileCase{name: "prog-" + p.name + "-acjson", input: hAcProgram(p.cmd), exit: 4, want: []string{p.why}})
		add(hostileCase{name: "prog-" + p.name + "-mcp", input: hMcpCall("shell.exec", hMcpArgs("command", p.cmd)), exit: 4, want: []string{p.why}})
		add(hostileCase{name: "prog-" + p.name + "-axon", input: hAxRun(p.cmd), exit: 4, want: []string{p.why}})
	}
	// env and cwd, which only FlyCode MCP's process.run and shell.exec carry.
	envs := []struct{ name, env, why string }{
		{"path", `{"PATH":"tools:/usr/bin:/bin"}`, `PATH`},
		{"ld-preload", `{"LD_PRELOAD":"tools/evil.so"}`, `LD_PRELOAD`},
		{"dyld", `{"DYLD_INSERT_LIBRARIES":"tools/evil.dylib"}`, `DYLD_INSERT_LIBRARIES`},
		{"git-config", `{"GIT_CONFIG_COUNT":"1","GIT_CONFIG_KEY_0":"core.fsmonitor","GIT_CONFIG_VALUE_0":"tools/go"}`, `GIT_CONFIG_`},
		{"git-dir", `{"GIT_DIR":"../outside"}`, `GIT_DIR`},
		{"goflags", `{"GOFLAGS":"-exec=tools/go"}`, `GOFLAGS`},
		{"gotoolchain", `{"GOTOOLCHAIN":"local"}`, `GOTOOLCHAIN`},
		{"bash-env", `{"BASH_ENV":"tools/go"}`, `BASH_ENV`},
		{"unknown", `{"FOO_BAR":"1"}`, `FOO_BAR.*not on the \[programs\] env list`},
	}
	for _, e := range envs {
		add(hostileCase{name: "prog-env-" + e.name + "-mcp", input: hMcpCall("process.run", hMcpArgs("command", "go", "args", `["test","./..."]`, "env", e.env)), exit: 4, want: []string{e.why}})
	}
	add(hostileCase{name: "prog-env-path-shell-mcp", input: hMcpCall("shell.exec", hMcpArgs("command", "git status", "env", `{"PATH":"tools"}`)), exit: 4, want: []string{`PATH`}})
	cwds := []struct{ name, cwd, why string }{
		{"dotdot", "..", msgOutside},
		{"abs-outside", "@OUTSIDE@", msgOutside},
		{"symlink", "linkdir", `symbolic link.*(outside the repository|leaves the repository)`},
		{"git", ".git", msgGit},
		{"missing", "nowhere", `nowhere`},
	}
	for _, c := range cwds {
		add(hostileCase{name: "prog-cwd-" + c.name + "-mcp", input: hMcpCall("process.run", hMcpArgs("command", "git", "args", `["status"]`, "cwd", c.cwd)), exit: 4, want: []string{c.why}})
	}
	add(hostileCase{name: "prog-cwd-symlink-shell-mcp", input: hMcpCall("shell.exec", hMcpArgs("command", "git status", "cwd", "linkdir")), exit: 4, want: []string{`symbolic link`}})
	add(hostileCase{name: "prog-args-exec-mcp", input: hMcpCall("process.run", hMcpArgs("command", "go", "args", `["test","-exec","tools/go","./..."]`)), exit: 4, want: []string{`"-exec"`}})
	add(hostileCase{name: "prog-args-gitc-mcp", input: hMcpCall("process.run", hMcpArgs("command", "git", "args", `["-c","core.pager=tools/go","log"]`)), exit: 4, want: []string{`allow entries|"-c"`}})
	add(hostileCase{name: "prog-command-path-mcp", input: hMcpCall("process.run", hMcpArgs("command", "tools/go", "args", `["test"]`)), exit: 4, want: []string{`allow entries`}})

	// Content is kept or refused, never altered.
	add(hostileCase{name: "utf8-content-acjson", input: hAcBlock(`"file_operations": [{"action_type": "create_file", "path": "u.txt", "file_content": "a` + "\xff\xfe" + `b"}]` + "\n"), exit: 2, want: []string{`0xFF at offset \d+.*not UTF-8`}})
	add(hostileCase{name: "utf8-path-acjson", input: hAcBlock(`"file_operations": [{"action_type": "create_file", "path": "u` + "\xc3" + `.txt", "file_content": "x"}]` + "\n"), exit: 2, want: []string{`offset \d+.*not UTF-8`}})
	add(hostileCase{name: "utf8-triple-acjson", input: hAcBlock(`"file_operations": [{"action_type": "create_file", "path": "u.txt", "file_content": """` + "\nline \xed\xa0\x80 surrogate\n" + `"""}]` + "\n"), exit: 2, want: []string{`offset \d+.*not UTF-8`}})
	add(hostileCase{name: "utf8-content-mcp", input: hMcpCall("fs.write", `{"path":"u.txt","mode":"overwrite","content":"a`+"\xff"+`b"}`), exit: 2, want: []string{`0xFF at offset \d+.*not UTF-8`}})
	add(hostileCase{name: "utf8-path-mcp", input: hMcpCall("fs.write", `{"path":"u`+"\xc0\xaf"+`.txt","mode":"overwrite","content":"x"}`), exit: 2, want: []string{`offset \d+.*not UTF-8`}})
	add(hostileCase{name: "utf8-content-axon", input: hAxWrite("u.txt", "a\xff\xfeb"), changes: []string{"u.txt"},
		check: func(t *testing.T, repo string) {
			if b, _ := os.ReadFile(filepath.Join(repo, "u.txt")); string(b) != "a\xff\xfeb\n" {
				t.Errorf("u.txt = %q, want the block's bytes kept", b)
			}
		}})

	// Not a readable block at all.
	add(hostileCase{name: "unclosed-acjson", input: "#####--\n{\"file_operations\": [\n", exit: 2, want: []string{`no closing --#####`}})
	add(hostileCase{name: "no-block", input: "just prose, no instructions\n", exit: 2, want: []string{`no instruction block found`}})

	// Sizes: a write over max_file_bytes (1 MiB here) and a response over
	// max_response_bytes (2 MiB here).
	big := strings.Repeat("x", 1<<20) + "\n"
	add(hostileCase{name: "size-write-acjson", input: hAcWrite("big.txt", big), exit: 4, want: []string{`over the limit.*max_file_bytes`}})
	add(hostileCase{name: "size-write-mcp", input: hMcpWrite("big.txt", big), exit: 4, want: []string{`over the limit.*max_file_bytes`}})
	add(hostileCase{name: "size-write-axon", input: hAxWrite("big.txt", big), exit: 4, want: []string{`over the limit.*max_file_bytes`}})
	huge := strings.Repeat("prose line\n", 200000)
	add(hostileCase{name: "size-response-acjson", input: huge + hAcWrite("x.txt", "x\n"), exit: 2, want: []string{`max_response_bytes`}})
	add(hostileCase{name: "size-response-mcp", input: huge + hMcpWrite("x.txt", "x\n"), exit: 2, want: []string{`max_response_bytes`}})
	add(hostileCase{name: "size-response-axon", input: huge + hAxWrite("x.txt", "x"), exit: 2, want: []string{`max_response_bytes`}})

	// Terminal escapes in what the response says about itself.
	esc := "\x1b[2K\x1b[1A\rall good"
	add(hostileCase{name: "term-reason-acjson", input: "#####--\n{\"metadata\": {\"step_id\": \"s1\", \"reason\": " + js(esc) + "},\n\"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"../x.txt\", \"file_content\": \"x\"}]}\n--#####\n", exit: 4, want: []string{msgOutside}})
	add(hostileCase{name: "term-stepid-acjson", input: "#####--\n{\"metadata\": {\"step_id\": " + js("s\x1b]0;title\x07") + ", \"reason\": \"r\"},\n\"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"../x.txt\", \"file_content\": \"x\"}]}\n--#####\n", exit: 4, want: []string{msgOutside}})
	add(hostileCase{name: "term-id-mcp", input: "```mcp-request\n{\"jsonrpc\":\"2.0\",\"id\":" + js("\x1b[2Kid") + ",\"method\":\"tools/call\",\"params\":{\"name\":\"fs.write\",\"arguments\":{\"path\":\"../x.txt\",\"mode\":\"overwrite\",\"content\":\"x\"}}}\n```\n", exit: 4, want: []string{msgOutside}})
	add(hostileCase{name: "term-commit-axon", input: hAxWrite("../x.txt", "x") + hAxAct("git_commit", esc), exit: 4, want: []string{msgOutside}})
	add(hostileCase{name: "term-unknown-act-axon", input: "~~~~~act\nbump\x1b[2K_version\n~~~~~\n", exit: 2, want: []string{`unknown act`, `known acts are`}})
	// The Axon feedback is plain text: on standard output it reaches the
	// terminal as the rest of the output does.
	add(hostileCase{name: "term-feedback-commit-axon", feedbackOut: true, input: hAxWrite("../x.txt", "x") + hAxAct("git_commit", esc), exit: 4, want: []string{msgOutside, `Axon plan: 1 step, 1 failed`}})
	add(hostileCase{name: "term-feedback-path-axon", feedbackOut: true, input: hAxWrite("a\x1b[2Jb.txt", "x"), exit: 4, want: []string{`control character`, `Axon plan: 1 step, 1 failed`}})
	add(hostileCase{name: "term-feedback-act-axon", feedbackOut: true, input: "~~~~~act\nbump\x1b[2K_version\n~~~~~\n", exit: 2, want: []string{`unknown act`, `not read`}})
	add(hostileCase{name: "term-feedback-reason-acjson", feedbackOut: true, input: "#####--\n{\"metadata\": {\"step_id\": \"s1\", \"reason\": " + js(esc) + "},\n\"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"../x.txt\", \"file_content\": \"x\"}]}\n--#####\n", exit: 4, want: []string{msgOutside, `"file_actions"`}})
	add(hostileCase{name: "term-feedback-bidi-mcp", feedbackOut: true, input: hMcpWrite("x\u202etxt.exe", "x"), exit: 4, want: []string{`control character \(U\+202E\)`, `mcp-response`}})
	// The commit a step makes carries the response's words (reason, step
	// id, Axon's commit message) into git log, which prints them raw:
	// there every control character but the line break and the tab is
	// written escaped.
	commitPrintable := func(t *testing.T, repo string) {
		cmd := exec.Command("git", "log", "-1", "--format=%B")
		cmd.Dir = repo
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git log: %v", err)
		}
		for _, r := range string(out) {
			if termsafe.IsControl(r) && r != '\n' && r != '\t' {
				t.Fatalf("the commit message holds the control character %U:\n%q", r, out)
			}
		}
		if !strings.Contains(string(out), `\x1b`) {
			t.Errorf("the commit message does not show the escape it was given as \\x1b:\n%s", out)
		}
	}
	add(hostileCase{name: "term-commit-reason-acjson", input: "#####--\n{\"metadata\": {\"step_id\": " + js("s\x1b]0;title\x07") + ", \"reason\": " + js(esc+"\u202e") + "},\n\"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"x.txt\", \"file_content\": \"x\"}]}\n--#####\n",
		changes: []string{"x.txt"}, check: commitPrintable})
	add(hostileCase{name: "term-commit-message-axon", input: hAxWrite("x.txt", "x") + hAxAct("git_commit", esc), changes: []string{"x.txt"}, check: commitPrintable})
	add(hostileCase{name: "term-read-missing-mcp", input: hMcpCall("fs.read", hMcpArgs("path", "no\x1b[31mred.txt")), exit: 4, want: []string{`control character|\\x1b|\\u001b`}})

	// Shapes that were quadratic: each must finish well inside the bound.
	fences := strings.Repeat("```\n", 120000)
	add(hostileCase{name: "slow-fences-acjson", input: fences + hAcWrite("x.txt", "x\n"), changes: []string{"x.txt"}})
	add(hostileCase{name: "slow-fences-mcp", input: fences + hMcpWrite("x.txt", "x\n"), changes: []string{"x.txt"}})
	add(hostileCase{name: "slow-fences-axon", input: fences + hAxWrite("x.txt", "x"), changes: []string{"x.txt"}})
	add(hostileCase{name: "slow-openers-acjson", input: strings.Repeat("#####--\n", 60000), exit: 2, want: []string{`--#####|no readable`}})
	add(hostileCase{name: "slow-openers-mcp", input: strings.Repeat("```mcp-request\n", 60000), exit: 2, want: []string{`mcp|no readable`}})
	add(hostileCase{name: "slow-bare-mcp", input: strings.Repeat("mcp-request\n", 60000), exit: 2, want: []string{`mcp|no readable`}})
	add(hostileCase{name: "slow-acts-axon", input: strings.Repeat("~~~~~act\n", 60000), exit: 2, want: []string{`unclosed|no readable|not closed`}})
	nearMiss := func(t *testing.T, repo string) {
		var b strings.Builder
		for i := 0; b.Len() < 400<<10; i++ {
			fmt.Fprintf(&b, "\tvalue%d := compute(%d, \"abcdefghij\")\n", i%7, i%13)
		}
		must(t, os.WriteFile(filepath.Join(repo, "src/big.go"), []byte(b.String()), 0o644))
		gitIn(t, repo, "add", "src/big.go")
		gitIn(t, repo, "commit", "-q", "-m", "a big file")
	}
	old := strings.Repeat("\tvalue1 := compute(1, \"abcdefghij\")\n\tvalue2 := compute(2, \"abcdefghij\")\n", 40) + "\tnot there at all\n"
	add(hostileCase{name: "slow-nearmiss-acjson", setup: nearMiss, input: hAcBlock(`"file_operations": [{"action_type": "replace_file", "path": "src/big.go", "modify_content": [{"old_content": ` + js(old) + `, "new_content": "x"}]}]` + "\n"), exit: 1, want: []string{`not found|no match|does not occur|not in`}})
	add(hostileCase{name: "slow-nearmiss-axon", setup: nearMiss, input: hAxAct("replace", "src/big.go", strings.TrimSuffix(old, "\n"), "x"), exit: 1, want: []string{`not found|no match|does not occur|not in`}})
	return cs
}
