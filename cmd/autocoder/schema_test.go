package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/rogpeppe/go-internal/testscript"
)

// schemaDir holds the JSON Schema of every --format json output,
// report's golden files (TestJSONSchemasGolden makes them from the
// types that write the output).
const schemaDir = "../../report/schema"

// The real --format json output of every command that has one matches its
// schema: apply (steps of each dialect, a read, a program, a failed step,
// a dry run, a response with no readable block), parse (every example of
// every prompt, an unreadable block, binary content), log (with a commit
// of the user's own), undo, redo and show. The schemas forbid properties
// they do not name, so an output field nobody documented fails here.
func TestJSONOutputsMatchTheirSchemas(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"README": "hello\n"})
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	checked := map[string]int{}
	check := func(schema string, wantCode int, args ...string) []byte {
		t.Helper()
		var out, errw bytes.Buffer
		appMu.Lock()
		code := run(append([]string{"autocoder", "-C", g.Dir}, args...), strings.NewReader(""), &out, &errw)
		appMu.Unlock()
		if code != wantCode {
			t.Fatalf("autocoder %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, wantCode, out.String(), errw.String())
		}
		validate(t, schema, out.Bytes())
		checked[schema]++
		return out.Bytes()
	}

	mixed := file("mixed.md", "#####--\n"+`{"metadata": {"step_id": "make-a", "reason": "add a"}, "type": "operate",
 "file_operations": [{"action_type": "create_file", "path": "a.txt", "file_content": "one\ntwo\n"}],
 "program_operations": [{"name": "hello", "command": "echo hi", "set_timeout": 10}]}`+"\n--#####\n"+
		"```mcp-request\n"+`{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"fs.write","arguments":{"path":"b.txt","mode":"overwrite","content":"b\n"}}}`+"\n```\n"+
		"~~~~~act\nreplace a.txt\n~~~~~\n~~~~~text\ntwo\n~~~~~\n~~~~~text\nTWO\n~~~~~\n"+
		"```mcp-request\n"+`{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"a.txt"}}}`+"\n```\n"+
		"~~~~~act\nreplace b.txt\n~~~~~\n~~~~~text\nnot there\n~~~~~\n~~~~~text\nx\n~~~~~\n")
	check("apply", 1, "apply", "--format", "json", "--allow-programs", mixed)
	check("apply", 0, "apply", "--format", "json", "--dry-run", file("new.md", "~~~~~act\nwrite_file c.txt\n~~~~~\n~~~~~text\nc\n~~~~~\n"))
	check("apply", 2, "apply", "--format", "json", file("bad.md", "~~~~~act\nfrobnicate x\n~~~~~\n"))

	// parse: every prompt's examples, and blocks it cannot read or that
	// hold binary content.
	exs, err := filepath.Glob("../../prompt/examples/*/*.md")
	if err != nil || len(exs) == 0 {
		t.Fatalf("no prompt examples: %v", err)
	}
	for _, ex := range exs {
		check("parse", 0, "parse", "--format", "json", ex)
	}
	check("parse", 1, "parse", "--format", "json", file("unreadable-and-binary.md", "~~~~~act\nfrobnicate x\n~~~~~\n"+
		"```mcp-request\n"+`{"jsonrpc":"2.0","id":"1","method":"tools/call","params":{"name":"fs.write","arguments":{"path":"a.bin","mode":"overwrite","content":"a\u0000b"}}}`+"\n```\n"))

	g.Write("mine.txt", "mine\n")
	g.Git("add", "mine.txt")
	g.Git("commit", "-q", "-m", "my own commit")
	out := check("log", 0, "log", "--format", "json")
	if !bytes.Contains(out, []byte(`"kind": "user"`)) {
		t.Errorf("log lists no commit of the user's own:\n%s", out)
	}
	g.Git("reset", "-q", "--hard", "HEAD~1")
	check("undo", 0, "undo", "--format", "json")
	check("redo", 0, "redo", "--format", "json")
	check("show", 0, "show", "--format", "json", "make-a")
	check("sessions", 0, "sessions", "--format", "json") // with sessions: TestWorktreeSessionListedWhileItRuns

	for _, s := range []string{"apply", "parse", "log", "undo", "redo", "show", "sessions"} {
		if checked[s] == 0 {
			t.Errorf("no output checked against %s.schema.json", s)
		}
	}
	ents, _ := os.ReadDir(schemaDir)
	for _, e := range ents {
		if name := strings.TrimSuffix(e.Name(), ".schema.json"); checked[name] == 0 {
			t.Errorf("%s: no command's output is checked against it", e.Name())
		}
	}
}

// validate checks the JSON output against schemaDir/NAME.schema.json.
func validate(t *testing.T, name string, output []byte) {
	t.Helper()
	if err := matchSchema(name, output); err != nil {
		t.Error(err)
	}
}

// schemaCmds is the script command
//
//	schema NAME   fail unless the last command's stdout matches NAME.schema.json
//
// for the outputs a Go test cannot easily make (show of a step from
// autocoder run, json_schema_run.txtar).
func schemaCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"schema": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 1 || neg {
				ts.Fatalf("usage: schema NAME")
			}
			ts.Check(matchSchema(args[0], []byte(ts.ReadFile("stdout"))))
		},
	}
}

// matchSchema is nil when output matches schemaDir/NAME.schema.json; the
// path is relative to this package's folder, where tests and scripts start.
func matchSchema(name string, output []byte) error {
	dir, err := filepath.Abs(schemaDir)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(dir, name+".schema.json"))
	if err != nil {
		return err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	var v any
	if err := json.Unmarshal(output, &v); err != nil {
		return fmt.Errorf("%s: the output is not JSON: %v\n%s", name, err, output)
	}
	if err := rs.Validate(v); err != nil {
		// oneOf says only that no alternative matched: say why each did not.
		why := err.Error()
		for i, alt := range s.OneOf {
			if ra, rerr := alt.Resolve(nil); rerr == nil {
				if aerr := ra.Validate(v); aerr != nil {
					why += fmt.Sprintf("\n  alternative %d: %v", i+1, aerr)
				}
			}
		}
		return fmt.Errorf("%s: the output does not match %s.schema.json: %s\n%s", name, name, why, output)
	}
	return nil
}
