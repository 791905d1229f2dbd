package runner

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/config"
)

// TestArgRuleRows tries every row of the allow-list tables (each is a row
// of the README's table): every option of the row, in each spelling its tool
// reads, after an entry of each of the row's programs, is refused, naming
// the option; and the same entry with a harmless argument is allowed.
func TestArgRuleRows(t *testing.T) {
	for _, r := range argRules {
		st := tools[r.Tool]
		programs := strings.Fields(st.Programs)
		if r.Tool == "" {
			programs = []string{"mytool"}
		}
		sub := "test"
		if r.Sub != "" {
			sub = strings.Fields(r.Sub)[0]
		}
		for _, prog := range programs {
			c := config.Default()
			c.Programs.Enabled = true
			entry := prog + " " + sub
			c.Programs.Allow = []string{entry}
			if ok, why := programAllowed(c, entry+" harmless", nil, false); !ok {
				t.Errorf("%s: a harmless argument is refused: %s", entry, why)
			}
			for _, o := range strings.Fields(r.Options) {
				for _, w := range spellings(st, o) {
					for _, args := range [][]string{{w}, {w, "value"}, {w + "=value"}} {
						line := entry + " " + strings.Join(args, " ")
						ok, why := programAllowed(c, prog, append([]string{sub}, args...), false)
						if ok || !strings.Contains(why, "would let") || !strings.Contains(why, entry) {
							t.Errorf("%s: allowed %v (%s); want refused, naming the entry", line, ok, why)
						}
					}
				}
			}
			for _, v := range strings.Fields(r.Vars) {
				for _, w := range []string{v + "=./x.sh", v + ":=x", v + "+=x", v + "?=x", "override " + v + "=x"} {
					ok, why := programAllowed(c, prog, []string{sub, w}, false)
					if ok || !strings.Contains(why, v) {
						t.Errorf("%s %q: allowed %v (%s); want refused, naming %s", entry, w, ok, why, v)
					}
				}
			}
		}
	}
}

// spellings are the ways the tool reads the option o.
func spellings(st argStyle, o string) []string {
	if st.Contains {
		name := strings.TrimLeft(o, "-")
		return []string{"--" + name, "--x-" + name + "-y", "--" + strings.ToUpper(name)}
	}
	out := []string{o}
	name := strings.TrimLeft(o, "-")
	if st.GoFlags {
		out = append(out, "--"+name, "-test."+name, "--test."+name)
	} else if len(o) == 2 {
		out = append(out, o+"value", "-q"+o[1:]) // attached value; in a bundle after a flag
	}
	if st.Abbrev && strings.HasPrefix(o, "--") && len(o) > 4 {
		out = append(out, o[:len(o)-1])
	}
	if st.Fold {
		out = append(out, strings.ToUpper(o), o[:2]+strings.ReplaceAll(o[2:], "-", "_"))
	}
	return out
}

// The findings of issue 18, each refused, and the uses the entries are for,
// each allowed.
func TestAllowEntriesNeverWiden(t *testing.T) {
	c := config.Default()
	c.Programs.Enabled = true
	c.Programs.Allow = []string{"npm test", "npx jest", "pnpm test", "yarn test", "cargo test", "pytest",
		"python -m pytest", "make test", "go test", "go vet", "node scripts/check.js", "mytool run", "git log"}
	refused := []string{
		"npm test --script-shell=./x.sh", "npm test --script-shell ./x.sh", "npm test --node-options=--require=./x.js",
		"npm test --prefix /tmp/other", "npm test --prefix=sub", "npm test --script_shell=./x.sh", "npm test --script-sh=./x.sh",
		"pnpm test --config.script-shell=./x.sh", "yarn test --cwd ../other", "npx jest -c ./x.sh",
		"cargo test --config target.x86_64-unknown-linux-gnu.runner=./x.sh", "cargo test -Zbuild-std",
		"cargo test -Z unstable-options", "cargo test --manifest-path ../other/Cargo.toml",
		"cargo test --manifest-path=/tmp/Cargo.toml", "cargo test --target-dir /tmp/t", "cargo test --target-dir=../t",
		"pytest -p evil_plugin", "pytest -pevil", "pytest --rootdir=/", "pytest -c /tmp/pytest.ini", "pytest --basetemp=/tmp/b",
		"pytest --basetemp=src", "python -m pytest -p evil", "python -m pytest --rootdir /tmp",
		"make test -f other.mk", "make test -C /tmp", "make test -sC sub", "make test SHELL=./x.sh",
		"make test .SHELLFLAGS=-c", "make test MAKEFLAGS=-f/tmp/x", "make test --eval=x", "make test --ev=x",
		"make test X!=touch\\ pwned", "make test -- SHELL=./x.sh",
		"go test -test.cpuprofile=/elsewhere", "go test -test.cpuprofile=cpu.out", "go test -ldflags=-extld=./x.sh",
		"go test ./... -args -test.outputdir /tmp", "go test -args -test.outputdir=out", "go vet -vettool=./x",
		"node scripts/check.js --require ./x.js", "node scripts/check.js -r ./x.js", "node scripts/check.js --inspect=0.0.0.0:9229",
		"mytool run --exec-command ./x.sh", "mytool run --config=other.toml", "mytool run /etc/passwd", "mytool run '~/x'",
		"mytool run ../../x", "mytool run --out=/tmp/x", "mytool run C:\\x", "mytool run file:///etc/passwd",
		"git log --output=/tmp/x", "git log -- ../x",
	}
	for _, line := range refused {
		if ok, why := programAllowed(c, line, nil, false); ok || !strings.Contains(why, "would let") {
			t.Errorf("%s: allowed %v (%s); want refused", line, ok, why)
		}
	}
	allowed := []string{
		"npm test", "npm test -- --coverage", "npx jest --ci", "cargo test --release -- --nocapture",
		"cargo test --manifest-path sub/Cargo.toml --target-dir target/x", "pytest -x -q tests/", "pytest -k test_p -rA",
		"python -m pytest tests/test_a.py::test_b", "make test V=1 -j4", "go test ./... -run TestX -count=1 -v",
		"go test -args -v", "node scripts/check.js --fast", "mytool run --verbose src/a.txt",
		"git log --oneline HEAD~3..HEAD", "git log main...HEAD -- src",
	}
	for _, line := range allowed {
		if ok, why := programAllowed(c, line, nil, false); !ok {
			t.Errorf("%s: refused (%s); want allowed", line, why)
		}
	}
}

// TestREADMEAllowListTable: the README's table of allow-list rules is the
// one argRules makes (AUTOCODER_UPDATE_README=1 writes it).
func TestREADMEAllowListTable(t *testing.T) {
	const begin, end = "<!-- allow-list rules: made from runner/argrules.go by TestREADMEAllowListTable -->\n", "<!-- end of allow-list rules -->"
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("the README has no allow-list table between %q and %q", begin, end)
	}
	want := allowListTable()
	if got := s[i+len(begin) : j]; got != want {
		if os.Getenv("AUTOCODER_UPDATE_README") == "1" {
			if err := os.WriteFile("../README.md", []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("the README's allow-list table differs from argRules (AUTOCODER_UPDATE_README=1 writes it):\n%s", want)
	}
}

// allowListTable is the README's table.
func allowListTable() string {
	var b strings.Builder
	b.WriteString("| programs | refused arguments | because such arguments |\n| --- | --- | --- |\n")
	for _, r := range argRules {
		st := tools[r.Tool]
		progs := "every other program"
		if r.Tool != "" {
			progs = "`" + strings.Join(strings.Fields(st.Programs), "`, `") + "`"
		}
		if r.Sub != "" {
			progs += " (" + strings.Join(strings.Fields(r.Sub), ", ") + ")"
		}
		var args []string
		for _, o := range strings.Fields(r.Options) {
			args = append(args, "`"+o+"`")
		}
		for _, v := range strings.Fields(r.Vars) {
			args = append(args, "`"+v+"=`")
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", progs, strings.Join(args, " "), r.Why)
	}
	b.WriteString("| every program | a path outside the repository, alone or as a value: `/abs`, `~/x`, `C:\\x`, a path climbing out with `..`, `--out=/tmp/x`, `file:///x`; also `!=`, and a `$` in a variable's value (`X=$(shell …)`), for `make`; a dotted category in `-W` (`ignore::pkg.Warning`, which pytest imports) for `pytest` | reach outside the repository (an absolute path into it is refused too: write it relative) |\n")
	b.WriteString("\nHow each tool's options are read, so that every spelling is caught:\n\n| programs | spellings |\n| --- | --- |\n")
	for _, k := range []string{"go", "git", "npm", "cargo", "pytest", "make", "node", ""} {
		st := tools[k]
		progs := "every other program"
		if k != "" {
			progs = "`" + strings.Join(strings.Fields(st.Programs), "`, `") + "`"
		}
		var sp []string
		switch {
		case st.Contains:
			sp = append(sp, "any long option whose name holds a word of its row (`--exec-command`), with or without `=value`")
		case st.GoFlags:
			sp = append(sp, "`-name` and `--name`, with `=value` or the next word; a test binary's `-test.name` too, also after `-args`")
		default:
			sp = append(sp, "`--name`, `--name=value`, `-x`, `-xvalue`, `-x` inside a bundle (`-sx`)")
		}
		if st.Abbrev {
			sp = append(sp, "a long option shortened to a prefix (`--ev` for `--eval`)")
		}
		if st.Fold {
			sp = append(sp, "any letter case, `_` for `-`")
		}
		if st.OptionsEnd {
			sp = append(sp, "no options after `--` (variables and paths still count)")
		}
		fmt.Fprintf(&b, "| %s | %s |\n", progs, strings.Join(sp, "; "))
	}
	for _, m := range moduleTools {
		var progs []string
		for _, p := range strings.Fields(m.Programs) {
			progs = append(progs, "`"+p+" -m "+m.Module+"`")
		}
		fmt.Fprintf(&b, "| %s | as `%s`, after the module's name |\n", strings.Join(progs, ", "), m.Tool)
	}
	return b.String()
}

// A make variable given on the command line is expanded by make, so a value
// holding $ runs $(shell …), writes with $(file >…) or reads with
// $(file <…) whatever the makefile says (GNU make 4.3 runs
// make test 'X=$(shell touch pwned)' even when no rule reads X): it widens
// "make test" as != does.
func TestMakeVariableExpansionNeverWidens(t *testing.T) {
	c := config.Default()
	c.Programs.Enabled = true
	c.Programs.Allow = []string{"make test"}
	for _, line := range []string{
		`make test 'X=$(shell touch pwned)'`, `make test 'X=$(file >out,hi)'`, `make test 'X=${shell id}'`,
		`make test 'X+=$(eval include other.mk)'`, `make test 'X?=$(shell id)'`, `make test -- 'X=$(shell id)'`,
		`make test 'X=$$(id)'`,
	} {
		if ok, why := programAllowed(c, line, nil, false); ok || !strings.Contains(why, "would let") {
			t.Errorf("%s: allowed %v (%s); want refused", line, ok, why)
		}
	}
	for _, line := range []string{"make test V=1", "make test 'CFLAGS=-O2 -g'"} {
		if ok, why := programAllowed(c, line, nil, false); !ok {
			t.Errorf("%s: refused (%s); want allowed", line, why)
		}
	}
}

// pytest's -W names a warning category, and a dotted one is imported
// (_resolve_warning_category: __import__ of the module part), so -W
// loads a module of the caller's choosing as -p does; a plain builtin
// category imports nothing and stays allowed.
func TestPytestWarningCategoryNeverImports(t *testing.T) {
	c := config.Default()
	c.Programs.Enabled = true
	c.Programs.Allow = []string{"pytest", "python -m pytest"}
	for _, line := range []string{
		`pytest -W 'ignore::antigravity.X'`, `pytest -W'error::evil.Warn'`, `pytest -Werror::evil.Warn`,
		`pytest --pythonwarnings=ignore::evil.W`, `pytest --pythonwarnings 'ignore:msg:evil.W'`,
		`pytest -vW 'ignore::evil.W'`, `python -m pytest -W 'ignore::evil.W'`,
	} {
		if ok, why := programAllowed(c, line, nil, false); ok || !strings.Contains(why, "would let") {
			t.Errorf("%s: allowed %v (%s); want refused", line, ok, why)
		}
	}
	for _, line := range []string{`pytest -W error`, `pytest -W 'ignore::DeprecationWarning'`, `pytest -W 'error:some.text:UserWarning'`, `pytest -k W`} {
		if ok, why := programAllowed(c, line, nil, false); !ok {
			t.Errorf("%s: refused (%s); want allowed", line, why)
		}
	}
}
