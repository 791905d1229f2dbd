package udiff

import (
	"strings"
	"testing"

	"github.com/autocoder/autocoder/step"
)

func TestParseShapes(t *testing.T) {
	text := "Intro\n\n```diff\n--- a/x.py\n+++ b/x.py\n@@ -10,3 +10,3 @@ def f():\n a\n-b\n+c\n d\n@@ ... @@\n-last\n+LAST\n\\ No newline at end of file\n```\nafter\n"
	items := Parse([]byte(text))
	if len(items) != 1 || items[0].Step == nil {
		t.Fatalf("items %+v", items)
	}
	it := items[0]
	if got := text[it.Start:it.End]; !strings.HasPrefix(got, "```diff\n") || !strings.HasSuffix(got, "```\n") {
		t.Errorf("span %q", got)
	}
	s := it.Step
	if s.Dialect != Dialect || s.ID != "diff-1" || len(s.Ops) != 1 || s.Ops[0].Kind != step.OpReplace || s.Ops[0].Path != "x.py" {
		t.Fatalf("step %+v", s)
	}
	e := s.Ops[0].Edits
	if len(e) != 2 || e[0].Old != "a\nb\nd\n" || e[0].New != "a\nc\nd\n" || e[0].AtEnd {
		t.Errorf("hunk 1 %+v", e[0])
	}
	if e[1].Old != "last\n" || e[1].New != "LAST" || !e[1].AtEnd {
		t.Errorf("hunk 2 %+v", e[1])
	}
}

// Text that starts like a diff but cannot be read is an error with its
// line, never prose.
func TestParseErrorsNameTheirLine(t *testing.T) {
	for _, c := range []struct {
		name, text string
		line       int
		msg        string
	}{
		{"header without hunk", "```diff\n--- a/x\n+++ b/x\n```\n", 2, "no hunk"},
		{"cut off bare", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n", 4, "cut off"},
		{"junk between files", "```diff\n--- a/x\n+++ b/x\n@@ ... @@\n-a\n+b\nNow the next file:\n--- a/y\n+++ b/y\n@@ ... @@\n-a\n+b\n```\n", 7, "belongs to no hunk"},
		{"binary", "```diff\ndiff --git a/p.png b/p.png\nBinary files a/p.png and b/p.png differ\n```\n", 3, "binary"},
	} {
		t.Run(c.name, func(t *testing.T) {
			items := Parse([]byte(c.text))
			if len(items) != 1 || items[0].Err == nil {
				t.Fatalf("items %+v", items)
			}
			e := items[0].Err
			if e.Pos.Line != c.line || !strings.Contains(e.Msg, c.msg) || e.Fix == "" {
				t.Errorf("error at line %d: %s (hint %q); want line %d, %q", e.Pos.Line, e.Msg, e.Fix, c.line, c.msg)
			}
		})
	}
}

// Fences of the other formats are theirs, even under a diff info string.
func TestOtherFormatsInDiffFences(t *testing.T) {
	for _, text := range []string{
		"```diff\n*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch\n```\n",
		"```diff\na.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n",
		"```python\nprint('--- a/b')\n```\n",
	} {
		if items := Parse([]byte(text)); len(items) != 0 {
			t.Errorf("%q read as a diff: %+v", text, items)
		}
	}
}
