package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

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
