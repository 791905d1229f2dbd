package applypatch

import (
	"strings"
	"testing"

	"github.com/autocoder/autocoder/step"
)

func TestParseShapes(t *testing.T) {
	text := "Intro\n\n```patch\n*** Begin Patch\n*** Update File: a.py\n@@ class A:\n@@ def f(self):\n-    x\n+    y\n*** End of File\n*** Delete File: b.py\n*** End Patch\n```\nafter\n"
	items := Parse([]byte(text))
	if len(items) != 1 || items[0].Step == nil {
		t.Fatalf("items: %+v", items)
	}
	it := items[0]
	if got := text[it.Start:it.End]; !strings.HasPrefix(got, "```patch\n") || !strings.HasSuffix(got, "```\n") {
		t.Errorf("span %q: want the whole fence", got)
	}
	s := it.Step
	if s.Dialect != Dialect || s.ID != "patch-1" || s.Pos.Line != 4 || len(s.Ops) != 2 {
		t.Fatalf("step %+v", s)
	}
	e := s.Ops[0].Edits[0]
	if strings.Join(e.Anchors, "|") != "class A:|def f(self):" || e.Old != "    x\n" || e.New != "    y\n" || !e.AtEnd || !e.Follows {
		t.Errorf("edit %+v", e)
	}
	if s.Ops[1].Kind != step.OpDelete || s.Ops[1].Path != "b.py" {
		t.Errorf("op %+v", s.Ops[1])
	}
}

// Text that starts like a patch but cannot be read is an error with the
// line where reading stopped, never prose.
func TestParseErrorsNameTheirLine(t *testing.T) {
	for _, c := range []struct {
		name, text string
		line       int
		msg        string
	}{
		{"no end", "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n", 5, "has no *** End Patch"},
		{"prose after a cut-off patch", "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\nThat is all.\n", 6, "no *** End Patch"},
		{"bad line in a chunk", "*** Begin Patch\n*** Update File: a\n@@\n-x\nstray\n*** End Patch\n", 5, "unexpected line"},
		{"add line without +", "*** Begin Patch\n*** Add File: a\n+x\ny\n*** End Patch\n", 4, "does not start with +"},
		{"operation outside an envelope", "Intro\n\n*** Update File: a\n@@\n-x\n+y\n", 3, "outside *** Begin Patch"},
		{"JSON input without end", `{"input": "*** Begin Patch\n*** Add File: a\n+x\n"}` + "\n", 1, "no *** End Patch"},
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

// A block of another dialect after a cut-off patch stays readable: the
// patch's span ends where reading it stopped.
func TestCutOffPatchSpanEndsAtItsError(t *testing.T) {
	text := "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\nNow the JSON:\n#####--\n{}\n--#####\n"
	items := Parse([]byte(text))
	if len(items) != 1 || items[0].End > strings.Index(text, "#####--") {
		t.Fatalf("span %d-%d of %q", items[0].Start, items[0].End, text)
	}
}

// Two patches in one fence are two steps; one patch alone in a heredoc in a
// fence takes the whole fence.
func TestPatchesInOneFence(t *testing.T) {
	two := "```patch\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Begin Patch\n*** Delete File: b\n*** End Patch\n```\n"
	items := Parse([]byte(two))
	if len(items) != 2 || items[0].Step == nil || items[1].Step == nil || items[0].End > items[1].Start {
		t.Fatalf("items %+v", items)
	}
	one := "```bash\napply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n```\n"
	items = Parse([]byte(one))
	if len(items) != 1 || items[0].Start != 0 || items[0].End != len(one) {
		t.Fatalf("items %+v", items)
	}
}

// Codex's shell call writes the patch as the second word of "cmd".
func TestCmdArrayToolCall(t *testing.T) {
	text := `{"cmd": ["apply_patch", "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n"], "workdir": "."}` + "\n"
	items := Parse([]byte(text))
	if len(items) != 1 || items[0].Step == nil || items[0].Step.Ops[0].Path != "a.txt" || items[0].End != len(text)-1 {
		t.Fatalf("items %+v", items)
	}
}

// A workdir, like a cd, would put the paths in another folder: refused.
func TestWorkdirRefused(t *testing.T) {
	text := `{"cmd": ["apply_patch", "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n"], "workdir": "sub"}` + "\n"
	items := Parse([]byte(text))
	if len(items) != 1 || items[0].Err == nil || !strings.Contains(items[0].Err.Msg, "workdir") {
		t.Fatalf("items %+v", items)
	}
}
