package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// TestRefusalHintsInTheDialect: the placeholder guard's and the ignored
// file's refusals answer each dialect with operations it has (MCP has no
// edit tool), and MCP classes them as retryable (INVALID_INPUT: fix the
// arguments), not FORBIDDEN ("do not retry"): the model can send them
// differently. Nothing changes.
func TestRefusalHintsInTheDialect(t *testing.T) {
	gittest.Isolate(t)
	file := "package m\n\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n\nfunc C() int { return 3 }\n\nfunc D() int { return 4 }\n"
	elided := `package m\n\n// ... existing code ...\n\nfunc E() int { return 5 }\n`
	mcpWrite := func(path, content string) string {
		return "```mcp-request\n" + `{"jsonrpc":"2.0","id":"w1","method":"tools/call","params":{"name":"fs.write","arguments":{"path":"` +
			path + `","mode":"overwrite","content":"` + content + `"}}}` + "\n```\n"
	}
	cases := []struct {
		name, resp string
		want       []string // in the feedback
		not        []string
	}{
		{"mcp placeholder", mcpWrite("m.go", elided),
			[]string{`"appCode":"INVALID_INPUT"`, "fs.write it whole"}, []string{"FORBIDDEN", "send an edit"}},
		{"mcp ignored", mcpWrite("debug.log", `x\n`),
			[]string{`"appCode":"INVALID_INPUT"`, "git does not ignore"}, []string{"FORBIDDEN"}},
		{"autocoder placeholder", "#####--\n" + `{"metadata":{"step_id":"s1","reason":"r"},"type":"operate","file_operations":[` +
			`{"action_type":"replace_file","path":"m.go","file_content":"` + elided + `"}]}` + "\n--#####\n",
			[]string{`"status": "refused"`, "replace_file with modify_content"}, []string{"fs.write"}},
		{"axon placeholder", "~~~~~act\nwrite_file m.go\n~~~~~\n~~~~~go\n" + strings.ReplaceAll(elided, `\n`, "\n") + "~~~~~\n",
			[]string{"refused by the safety policy", "send a replace act"}, []string{"fs.write", "modify_content"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := gittest.NewWithCommit(t, map[string]string{"m.go": file, ".gitignore": "*.log\n"})
			before := g.Snapshot()
			resp := filepath.Join(t.TempDir(), "r.md")
			must(t, os.WriteFile(resp, []byte(c.resp), 0o666))
			// The answer alone: standard output (the report is on stderr).
			cmd := exec.Command("autocoder", "-C", g.Dir, "apply", "--feedback", "-", resp)
			o, err := cmd.Output()
			out := string(o)
			if err == nil {
				t.Fatalf("applied:\n%s", out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("the answer lacks %q:\n%s", w, out)
				}
			}
			for _, w := range c.not {
				if strings.Contains(out, w) {
					t.Errorf("the answer holds %q:\n%s", w, out)
				}
			}
			g.AssertUnchanged(before)
		})
	}
}
