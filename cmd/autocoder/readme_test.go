package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/protocol/acjson"
	"github.com/autocoder/autocoder/protocol/axon"
	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/protocol/mcp"
	"github.com/autocoder/autocoder/shellwords"
)

// TestREADMECommandsAreValid runs every autocoder command line of the
// README's shell examples (the three ways to close the loop among them)
// with --help added: the command must exist and accept every flag the
// example gives it, so that a copy-pasted example does not stop at a
// usage error. (The MCP clients' JSON lines are run by
// TestMCPClientConfigurations.)
func TestREADMECommandsAreValid(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := readmeCommands(string(b))
	for _, want := range []string{"autocoder apply --clipboard", "autocoder run --model", "autocoder mcp"} {
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(strings.Join(l, " "), want)
		}
		if !found {
			t.Errorf("the README has no example %q...", want)
		}
	}
	for _, args := range lines {
		var out bytes.Buffer
		if code := run(append(args, "--help"), strings.NewReader(""), &out, &out); code != 0 {
			t.Errorf("README example %q: with --help, exit %d:\n%s", strings.Join(args, " "), code, out.String())
		}
	}
}

// readmeCommands are the autocoder command lines in the ```sh blocks of a
// README: each line's comment and redirection cut off, each part of a pipe
// or && list that starts with autocoder (or runs it after --, as claude mcp
// add does).
func readmeCommands(text string) [][]string {
	var out [][]string
	in := false
	for _, line := range strings.Split(text, "\n") {
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trim, "```"):
			in = trim == "```sh" || trim == "```bash" || trim == "```shell"
			continue
		case !in:
			continue
		}
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		for _, part := range strings.FieldsFunc(line, func(r rune) bool { return r == '|' || r == '&' || r == ';' }) {
			if i := strings.Index(part, " >"); i >= 0 {
				part = part[:i] // a redirection is the shell's
			}
			words, err := shellwords.Split(strings.TrimSpace(part))
			if err != nil || len(words) == 0 {
				continue
			}
			for i, w := range words {
				if w == "autocoder" && (i == 0 || words[i-1] == "--") {
					out = append(out, words[i:])
					break
				}
			}
		}
	}
	return out
}

// TestREADMEDialectExamplesRead feeds the README's examples of the three
// dialects (its ````response blocks) through the reader, as `autocoder
// parse` reads them: each gives steps with no error and no repair (an
// example that needed one would teach it), and together they show all
// three dialects. The README also names every operation of every dialect.
func TestREADMEDialectExamplesRead(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, blk := range fence.Scan(b) {
		if blk.Info != "response" {
			continue
		}
		items, _ := protocol.Read(blk.Content) // as autocoder parse reads it
		if len(items) == 0 {
			t.Errorf("README line %d: no block read", blk.Line)
		}
		for _, it := range items {
			if it.Err != nil {
				t.Errorf("README line %d: %v", blk.Line, it.Err)
				continue
			}
			shown[it.Step.Dialect] = true
			for _, r := range it.Step.Repairs {
				t.Errorf("README line %d: the example needed a repair at its line %d: %s", blk.Line, r.Pos.Line, r.What)
			}
		}
	}
	for _, d := range []string{"autocoder-json", "mcp", "axon", "apply_patch", "udiff", "search-replace", "whole-file", "editor-json"} {
		if !shown[d] {
			t.Errorf("the README shows no example of %s (a ````response block)", d)
		}
	}
	names := append(append(acjson.ActionTypes(), mcp.ToolNames()...), axon.Acts()...)
	for _, n := range names {
		if !bytes.Contains(b, []byte("`"+n+"`")) {
			t.Errorf("the README does not name the operation `%s`", n)
		}
	}
}

// TestREADMEHasNoOutsideLinks: the README holds what a user needs, with no
// link out of the repository (a page that moves or goes away): no http(s)
// address but a local server's in an example, and no relative link that
// leaves the repository or names a file it does not have.
func TestREADMEHasNoOutsideLinks(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, u := range regexp.MustCompile(`(?i)https?://[^\s)>\]"'`+"`"+`]+`).FindAllString(text, -1) {
		host := strings.ToLower(strings.SplitN(strings.SplitN(u, "://", 2)[1], "/", 2)[0])
		host, _, _ = strings.Cut(host, ":")
		if host != "localhost" && host != "127.0.0.1" {
			t.Errorf("the README links outside the repository: %s", u)
		}
	}
	for _, m := range regexp.MustCompile(`\]\(([^)\s]+)\)`).FindAllStringSubmatch(text, -1) {
		target, _, _ := strings.Cut(m[1], "#")
		if target == "" || strings.Contains(target, "://") {
			continue // an anchor in the README; an address is checked above
		}
		if strings.HasPrefix(target, "/") || strings.Contains(target, "..") {
			t.Errorf("the README links out of the repository: %s", m[1])
			continue
		}
		if _, err := os.Stat(filepath.Join("../..", target)); err != nil {
			t.Errorf("the README links to %s, which the repository does not have", m[1])
		}
	}
	if strings.Contains(text, "../") {
		t.Errorf("the README points out of the repository (../): %q", text[max(0, strings.Index(text, "../")-40):strings.Index(text, "../")+20])
	}
}

// TestREADMETestsSection holds the README's "Tests" section to the tree:
// its -update command names exactly the packages whose tests use the
// golden files (internal/golden, whose -update flag a package without
// them does not know, so `go test` of it would fail), its fuzz targets
// are exactly the tree's, each with its package, and what it says .ci/run
// does is in .ci/run.
func TestREADMETestsSection(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "\n## Tests\n")
	if start < 0 {
		t.Fatal("the README has no Tests section")
	}
	section := readme[start+1:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:end+1]
	}
	section = strings.Join(strings.Fields(section), " ") // lines wrap anywhere

	goldenPkgs := map[string]bool{}
	fuzz := map[string]bool{} // "FuzzX ./pkg"
	fuzzRE := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	err = filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		pkg := "./" + filepath.ToSlash(filepath.Dir(strings.TrimPrefix(p, "../../")))
		if bytes.Contains(src, []byte(`"github.com/autocoder/autocoder/internal/golden"`)) {
			goldenPkgs[pkg] = true
		}
		for _, m := range fuzzRE.FindAllSubmatch(src, -1) {
			fuzz[string(m[1])+" "+pkg] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	update := regexp.MustCompile("`go test ([^`]*) -update`").FindStringSubmatch(section)
	if update == nil {
		t.Fatal("the Tests section has no `go test PACKAGES -update` command")
	}
	named := map[string]bool{}
	for _, p := range strings.Fields(update[1]) {
		named[p] = true
		if !goldenPkgs[p] {
			t.Errorf("the README's -update command names %s, whose tests have no golden files (go test would refuse -update)", p)
		}
	}
	for p := range goldenPkgs {
		if !named[p] {
			t.Errorf("the README's -update command leaves out %s, whose tests use golden files", p)
		}
	}

	// "`FuzzA` and `FuzzB` (`./pkg`)" or "-fuzz FuzzA ./pkg": each target
	// is named with its package; every target of the tree, and nothing else.
	listed := map[string]bool{}
	groupRE := regexp.MustCompile("((?:`Fuzz\\w+`(?:, | and )?)+) \\(((?:`\\./[\\w/]+`(?:, | and )?)+)\\)")
	for _, m := range groupRE.FindAllStringSubmatch(section, -1) {
		for _, f := range regexp.MustCompile(`Fuzz\w+`).FindAllString(m[1], -1) {
			for _, p := range regexp.MustCompile(`\./[\w/]+`).FindAllString(m[2], -1) {
				listed[f+" "+p] = true
			}
		}
	}
	for _, m := range regexp.MustCompile(`-fuzz (Fuzz\w+) (\./[\w/]+)`).FindAllStringSubmatch(section, -1) {
		listed[m[1]+" "+m[2]] = true
	}
	for f := range listed {
		if !fuzz[f] {
			t.Errorf("the README names the fuzz target %s, which the tree does not have", f)
		}
	}
	for f := range fuzz {
		if !listed[f] {
			t.Errorf("the README does not name the fuzz target %s", f)
		}
	}

	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	for claim, in := range map[string]string{
		"gofmt":                     "gofmt -l",
		"`go vet`":                  "go vet ./...",
		"darwin/arm64":              "darwin/arm64",
		"windows/amd64":             "windows/amd64",
		"staticcheck":               "/staticcheck\" ./...",
		"deadcode":                  "/deadcode\" ./cmd/autocoder",
		"Xvfb, xclip, zsh and fish": "xvfb xclip zsh fish",
		"`go test ./...`":           "go test -timeout 20m -json ./... | ",
		"`go test -race`":           "go test -race -timeout 30m -json ",
		"`.ci/testtimes`":           "go test ./.ci/testtimes",
	} {
		if !strings.Contains(section, claim) {
			t.Errorf("the Tests section does not say what .ci/run does: %q", claim)
		}
		if !strings.Contains(string(ci), in) {
			t.Errorf("the Tests section says .ci/run does %q, and .ci/run has no %q", claim, in)
		}
	}
}
