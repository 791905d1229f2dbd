package protocol

import (
	"strings"
	"testing"
)

// The edit formats mix freely with the seed dialects in one answer: each
// block is read by its own reader, in document order, and named by it.
func TestFormatsMixWithDialects(t *testing.T) {
	text := strings.Join([]string{
		"First the JSON block:",
		"#####--",
		`{"metadata": {"step_id": "one"}, "file_operations": [{"action_type": "create_file", "path": "a.txt", "file_content": "a\n"}]}`,
		"--#####",
		"then a patch:",
		"*** Begin Patch",
		"*** Add File: b.txt",
		"+b",
		"*** End Patch",
		"```mcp-request",
		`{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "fs.write", "arguments": {"path": "c.txt", "content": "c", "mode": "overwrite"}}}`,
		"```",
		"",
	}, "\n")
	items := Parse([]byte(text))
	var got []string
	for _, it := range items {
		if it.Step == nil {
			t.Fatalf("unreadable: %v", it.Err)
		}
		got = append(got, it.Step.Dialect)
	}
	if strings.Join(got, " ") != "autocoder-json apply_patch mcp" {
		t.Errorf("dialects %v", got)
	}
}

// An answer in which nothing at all could be read still gets an answer:
// what autocoder reads, with an example of each edit format.
func TestFeedbackForNothingIsNotEmpty(t *testing.T) {
	fb := string(Feedback(nil))
	for _, want := range []string{"No instruction block", "*** Begin Patch", "```diff", "#####--"} {
		if !strings.Contains(fb, want) {
			t.Errorf("feedback lacks %q:\n%s", want, fb)
		}
	}
}
