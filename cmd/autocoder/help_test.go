package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/config"
	"github.com/urfave/cli/v2"
)

// Every command of the app, and the app itself, shows examples in its
// help: an EXAMPLES section whose lines run that command.
func TestEveryCommandHasExamples(t *testing.T) {
	app := newApp(strings.NewReader(""), io.Discard, io.Discard)
	if len(app.Commands) == 0 {
		t.Fatal("no commands")
	}
	var walk func(path []string, cmds []*cli.Command)
	walk = func(path []string, cmds []*cli.Command) {
		for _, cmd := range cmds {
			p := append(append([]string{}, path...), cmd.Name)
			checkExamples(t, p)
			walk(p, cmd.Subcommands)
		}
	}
	checkExamples(t, nil)
	walk(nil, app.Commands)
}

// checkExamples runs `autocoder PATH... --help` and checks its EXAMPLES.
func checkExamples(t *testing.T, path []string) {
	t.Helper()
	var out, errw bytes.Buffer
	args := append(append([]string{"autocoder"}, path...), "--help")
	if code := run(args, strings.NewReader(""), &out, &errw); code != 0 {
		t.Errorf("%s: exit %d\n%s", strings.Join(args, " "), code, errw.String())
		return
	}
	_, ex, ok := strings.Cut(out.String(), "\nEXAMPLES:\n")
	name := strings.Join(append([]string{"autocoder"}, path...), " ")
	if !ok {
		t.Errorf("%s: no EXAMPLES section in its help:\n%s", name, out.String())
		return
	}
	n := 0
	for _, line := range strings.Split(ex, "\n") {
		if strings.HasPrefix(line, "   ") && strings.Contains(line, name) {
			n++
		}
	}
	if n == 0 {
		t.Errorf("%s: no example runs %q:\n%s", name, name, ex)
	}
}

// run's flags that fall back to [model] show the default that applies
// when neither the flag nor autocoder.toml sets them, not the flag's zero
// value: "--max-turns N (default: 0)" read as "no limit", and the run
// stopped at 30.
func TestRunHelpShowsTheDefaults(t *testing.T) {
	var out, errw bytes.Buffer
	if code := run([]string{"autocoder", "run", "--help"}, strings.NewReader(""), &out, &errw); code != 0 {
		t.Fatalf("exit %d\n%s", code, errw.String())
	}
	d := config.Default().Model
	for _, want := range []string{
		fmt.Sprintf("--max-turns N      stop after N answers ([model] max_turns) (default: %d)", d.MaxTurns),
		fmt.Sprintf("([model] max_tokens) (default: %d)", d.MaxTokens),
		fmt.Sprintf("([model] dialect) (default: %s)", d.Dialect),
		"([model] lang) (default: " + localeDefault + ")",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run --help lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "(default: 0)") {
		t.Errorf("run --help shows a zero default:\n%s", out.String())
	}
}

// TestRunExitCodesDocumented: run --help and the README give run's exit
// codes, the same text in both.
func TestRunExitCodesDocumented(t *testing.T) {
	var out, errw bytes.Buffer
	if code := run([]string{"autocoder", "run", "--help"}, strings.NewReader(""), &out, &errw); code != 0 {
		t.Fatalf("exit %d\n%s", code, errw.String())
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(runExitCodes, "\n") {
		if !strings.Contains(out.String(), line) {
			t.Errorf("run --help lacks %q:\n%s", line, out.String())
		}
		if !strings.Contains(string(readme), line+"\n") {
			t.Errorf("the README lacks %q", line)
		}
	}
	for _, code := range []string{"0 ", "1 ", "2 ", "4 ", "5 ", "130 "} {
		if !strings.Contains(runExitCodes, "\n  "+code) {
			t.Errorf("run's exit codes do not give %s", code)
		}
	}
}
