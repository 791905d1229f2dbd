package protocol

import (
	"strings"
	"testing"
)

// A fence with no path marker is an example: Read lists it, and its note
// says it was skipped and how to write a file instead; fences inside
// blocks, fences another format reads and fences with a path are not
// listed.
func TestReadNamesTheFencesItSkipped(t *testing.T) {
	text := "Run it like this:\n```sh\nmake test\n```\n\n" +
		"app.py\n```python\nprint(1)\n```\n\n" +
		"~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nb.txt\n~~~~~\n~~~~~text\n```\nquoted\n```\n~~~~~\n\n" +
		"```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n```\n"
	items, rd := Read([]byte(text))
	if len(items) != 3 || items[0].Step == nil || items[0].Step.Dialect != "whole-file" {
		t.Fatalf("%d items, want the whole file, the Axon act and the diff: %s", len(items), render(items))
	}
	if len(rd.Examples) != 1 || rd.Examples[0].Line != 2 || rd.Examples[0].Info != "sh" {
		t.Fatalf("examples %+v, want the ```sh fence at line 2", rd.Examples)
	}
	notes := strings.Join(rd.Notes(), "\n")
	if !strings.Contains(notes, "skipped the ```sh fence at line 2") || !strings.Contains(notes, "put its path on the line above the fence") {
		t.Errorf("notes: %s", notes)
	}
}
