package acjson

import (
	"bytes"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/textpos"
)

// checkItems asserts what every parse must hold: items in order, disjoint,
// inside the text, each starting at an opener, each exactly one of Step and
// Err, and every position's line and column agreeing with its offset.
func checkItems(t testing.TB, text []byte, items []step.Item) {
	t.Helper()
	prev := 0
	checkPos := func(what string, p step.Pos) {
		t.Helper()
		if p.Offset < 0 || p.Offset > len(text) {
			t.Fatalf("%s: offset %d outside the text", what, p.Offset)
		}
		if want := textpos.Advance(text, textpos.Start, p.Offset); want != p {
			t.Fatalf("%s: position %+v, want %+v", what, p, want)
		}
	}
	for i, it := range items {
		if it.Start < prev || it.End <= it.Start || it.End > len(text) {
			t.Fatalf("item %d spans [%d,%d) after %d in a text of %d bytes", i, it.Start, it.End, prev, len(text))
		}
		if !bytes.HasPrefix(text[it.Start:], Opener) {
			t.Fatalf("item %d does not start at an opener", i)
		}
		prev = it.End
		if (it.Step == nil) == (it.Err == nil) {
			t.Fatalf("item %d: step %v, error %v: want exactly one", i, it.Step, it.Err)
		}
		if it.Err != nil {
			checkPos(fmt.Sprintf("item %d error", i), it.Err.Pos)
			if it.Err.Hint() == "" || it.Err.Dialect != Dialect {
				t.Fatalf("item %d error %+v lacks a hint or the dialect", i, it.Err)
			}
			continue
		}
		s := it.Step
		checkPos(fmt.Sprintf("item %d step", i), s.Pos)
		if s.Pos.Offset != it.Start || s.Dialect != Dialect || s.ID == "" {
			t.Fatalf("item %d step %+v", i, s)
		}
		for _, r := range s.Repairs {
			checkPos(fmt.Sprintf("item %d repair %q", i, r.What), r.Pos)
		}
		for _, op := range s.Ops {
			checkPos(fmt.Sprintf("item %d op", i), op.Pos)
			for _, e := range op.Edits {
				checkPos(fmt.Sprintf("item %d edit", i), e.Pos)
			}
		}
		if src, ok := s.Source.(*Source); !ok || len(src.Actions) != len(s.Ops) {
			t.Fatalf("item %d: source %#v does not name one action per op", i, s.Source)
		}
	}
}

func parseOne(t *testing.T, text string) step.Item {
	t.Helper()
	items := Parse([]byte(text))
	checkItems(t, []byte(text), items)
	if len(items) != 1 {
		t.Fatalf("Parse(%q) gave %d items, want 1", text, len(items))
	}
	return items[0]
}

// TestShapeErrors: every wrong field is an error at that field, with a hint.
func TestShapeErrors(t *testing.T) {
	tests := []struct {
		name      string
		json      string // on line 2, after "#####--\n"
		col       int
		msg       string
		hintPart  string
		wantLine2 bool
	}{
		{"not an object", `[1]`, 1, "want an object", "one object per block", true},
		{"metadata not an object", `{"metadata": "x"}`, 14, "metadata must be an object", "", true},
		{"step_id a number", `{"metadata": {"step_id": 4}}`, 26, `"step_id" must be a string`, "", true},
		{"template type", `{"type": "operate/finish"}`, 10, `"operate/finish"`, `choose one`, true},
		{"unknown type", `{"type": "check"}`, 10, `unknown type "check"`, "check_program", true},
		{"file_operations not an array", `{"file_operations": {}}`, 21, `must be an array`, "", true},
		{"no action_type", `{"file_operations": [{"path": "a"}]}`, 22, "no action_type", "create_file", true},
		{"unknown action", `{"file_operations": [{"action_type": "move_file", "path": "a"}]}`, 38, `unknown action_type "move_file"`, "list_tree", true},
		{"two actions", `{"file_operations": [{"action_type": "create_file/replace_file", "path": "a"}]}`, 38, `unknown action_type`, "one action per operation", true},
		{"no path", `{"file_operations": [{"action_type": "delete_file"}]}`, 22, "no path", "relative to the repository root", true},
		{"empty path", `{"file_operations": [{"action_type": "delete_file", "path": ""}]}`, 61, "no path", "", true},
		{"create without content", `{"file_operations": [{"action_type": "create_file", "path": "a"}]}`, 22, "no file_content", "", true},
		{"replace without anything", `{"file_operations": [{"action_type": "replace_file", "path": "a"}]}`, 22, "nothing to replace", "modify_content", true},
		{"replace with both", `{"file_operations": [{"action_type": "replace_file", "path": "a", "file_content": "x", "modify_content": [{"old_content": "a", "new_content": "b"}]}]}`, 83, "both modify_content and a file_content", "", true},
		{"no new_content", `{"file_operations": [{"action_type": "replace_file", "path": "a", "modify_content": [{"old_content": "a"}]}]}`, 86, "no new_content", "", true},
		{"old_content a number", `{"file_operations": [{"action_type": "replace_file", "path": "a", "modify_content": [{"old_content": 1, "new_content": "a"}]}]}`, 102, `"old_content" must be a string`, "", true},
		{"no command", `{"program_operations": [{"name": "x"}]}`, 25, `the program "x" has no command`, "", true},
		{"timeout a string", `{"program_operations": [{"command": "make", "set_timeout": "30"}]}`, 60, "set_timeout must be a number", `"set_timeout": 30`, true},
		{"negative timeout", `{"program_operations": [{"command": "make", "set_timeout": -1}]}`, 60, "set_timeout must be a number", "", true},
		{"terminal in operate", `{"program_operations": [{"command": "make", "terminal": true}]}`, 57, "terminal", "check_program", true},
		{"terminal not a bool", `{"program_operations": [{"command": "make", "terminal": "yes"}]}`, 57, `"terminal" must be true or false`, "", true},
		{"check without terminal", `{"type": "check_program", "program_operations": [{"name": "srv"}]}`, 50, `lacks "terminal": true`, "", true},
		{"check without name", `{"type": "check_program", "program_operations": [{"terminal": true}]}`, 50, "names no program", "", true},
		{"check with file ops", `{"type": "check_program", "file_operations": [{"action_type": "list_tree", "path": "."}]}`, 46, "carries file_operations", "", true},
		{"finish with ops", `{"type": "finish", "file_operations": [{"action_type": "list_tree", "path": "."}]}`, 39, "finish step carries operations", "", true},
		// A field missing because the model named it otherwise: the hint
		// names what it wrote, and the field it probably meant.
		{"file_path for path", `{"file_operations": [{"action_type": "delete_file", "file_path": "a"}]}`, 22, "no path", `"file_path" is not a field of a file operation (did you mean "path"?)`, true},
		{"content for file_content", `{"file_operations": [{"action_type": "create_file", "path": "a", "contents": "x"}]}`, 22, "no file_content", `"contents" is not a field of a file operation`, true},
		{"old for old_content", `{"file_operations": [{"action_type": "replace_file", "path": "a", "modify_content": [{"old": "a", "new": "b"}]}]}`, 86, "no old_content", `"old" is not a field of a modify_content entry (did you mean "old_content"?), nor is "new" (did you mean "new_content"?)`, true},
		{"action for action_type", `{"file_operations": [{"action": "delete_file", "path": "a"}]}`, 22, "no action_type", `"action" is not a field of a file operation (did you mean "action_type"?)`, true},
		{"duplicate field", `{"file_operations": [{"action_type": "delete_file", "path": "a", "path": "b"}]}`, 66, `"path" appears twice`, "keep one", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			it := parseOne(t, "#####--\n"+tc.json+"\n--#####\n")
			if it.Err == nil {
				t.Fatalf("got step %+v, want an error", it.Step)
			}
			e := it.Err
			if e.Pos.Line != 2 || e.Pos.Col != tc.col || !strings.Contains(e.Msg, tc.msg) || !strings.Contains(e.Hint(), tc.hintPart) {
				t.Errorf("error %d:%d %q hint %q, want 2:%d containing %q, hint containing %q", e.Pos.Line, e.Pos.Col, e.Msg, e.Hint(), tc.col, tc.msg, tc.hintPart)
			}
			if e.Quote == "" {
				t.Errorf("error has no quote")
			}
		})
	}
}

// TestMapping: every action type and program form becomes the right step.
func TestMapping(t *testing.T) {
	text := `#####--
{"metadata": {"step_id": "m1", "reason": "r", "summary": "s"},
 "file_operations": [
  {"action_type": "create_file", "path": "a", "file_content": ""},
  {"action_type": "replace_file", "path": "b", "modify_content": [{"identifier": "f", "old_content": "x", "new_content": ""}]},
  {"action_type": "replace_file", "path": "c", "file_content": "whole"},
  {"action_type": "delete_file", "path": "d"},
  {"action_type": "create_directory", "path": "e"},
  {"action_type": "delete_directory", "path": "f"},
  {"action_type": "read_file", "path": "g"},
  {"action_type": "list_tree", "path": "h"}],
 "program_operations": [{"name": "p", "command": "make", "set_timeout": 1.5, "expected_output": "ok"}, {"command": "ls"}]}
--#####`
	it := parseOne(t, text)
	if it.Err != nil {
		t.Fatal(it.Err)
	}
	s := it.Step
	if s.ID != "m1" || s.Reason != "r" || s.Summary != "s" || len(s.Repairs) != 0 {
		t.Errorf("step %+v", s)
	}
	want := []step.OpKind{step.OpWrite, step.OpReplace, step.OpWrite, step.OpDelete, step.OpMkdir, step.OpRmdir, step.OpRead, step.OpList}
	if len(s.Ops) != len(want) {
		t.Fatalf("ops %+v", s.Ops)
	}
	for i, k := range want {
		if s.Ops[i].Kind != k || s.Ops[i].Path != string(rune('a'+i)) {
			t.Errorf("op %d = %s %s, want %s", i, s.Ops[i].Kind, s.Ops[i].Path, k)
		}
	}
	if !s.Ops[0].HasContent || len(s.Ops[0].Content) != 0 {
		t.Errorf("empty create_file content lost: %+v", s.Ops[0])
	}
	if e := s.Ops[1].Edits; len(e) != 1 || !reflect.DeepEqual(e[0], step.Edit{Identifier: "f", Old: "x", New: "", Pos: e[0].Pos}) || e[0].Pos.Line != 5 {
		t.Errorf("edits %+v", e)
	}
	if string(s.Ops[2].Content) != "whole" || !s.Ops[4].Parents {
		t.Errorf("ops %+v", s.Ops)
	}
	src := s.Source.(*Source)
	if src.Type != "operate" || src.Actions[2] != "replace_file" || src.Actions[7] != "list_tree" {
		t.Errorf("source %+v", src)
	}
	p := s.Programs
	if len(p) != 2 || !reflect.DeepEqual(p[0], step.Program{Name: "p", Command: "make", Shell: true, Timeout: 1500 * time.Millisecond, ExpectedOutput: "ok", Pos: p[0].Pos}) ||
		p[1].Name != "program-2" || p[1].Timeout != 0 || !p[1].Shell {
		t.Errorf("programs %+v", p)
	}
}

// TestStrictHasNoRepairs and its converse: the same block, strict and loose.
func TestStrictHasNoRepairs(t *testing.T) {
	strict := parseOne(t, "#####--\n{\"file_operations\": [{\"action_type\": \"list_tree\", \"path\": \".\"}]}\n--#####")
	loose := parseOne(t, "#####--\n{file_operations: [{\"action_type\": \"list_tree\", \"path\": \".\",}]}\n--#####")
	if strict.Step == nil || len(strict.Step.Repairs) != 0 {
		t.Errorf("strict block: %+v", strict.Step)
	}
	if loose.Step == nil || len(loose.Step.Repairs) != 2 {
		t.Fatalf("loose block: %+v", loose.Step)
	}
	if r := loose.Step.Repairs[1]; r.Pos.Line != 2 || r.Pos.Col != 60 || !strings.Contains(r.What, "trailing comma") {
		t.Errorf("repair %+v", r)
	}
}

// TestBrokenBlocks: an unreadable block is one error, and reading goes on
// after its closer.
func TestBrokenBlocks(t *testing.T) {
	tests := []struct {
		name       string
		text       string
		line, col  int
		msg        string
		afterSteps int // steps read after the broken block
	}{
		{"missing brace", "#####--\n{\"type\": \"operate\"\n--#####\n#####--\n{}\n--#####", 3, 1, "the block ends at line 3", 1},
		{"unterminated string", "#####--\n{\"a\": \"x\n}\n--#####\n#####--\n{}\n--#####", 2, 7, "never closed", 1},
		// The next opener reads as a # comment, so the reader fails past it;
		// the error is put where the next block opens.
		{"no closer, next block", "#####--\n{\"a\": 1\n\n#####--\n{}\n--#####", 4, 1, "not complete before the next #####--", 1},
		{"no closer at all", "text\n#####--\n{\"a\": 1}\nmore text", 4, 1, "expected --#####", 0},
		{"closer missing at the end", "#####--\n{\"a\": 1}", 2, 9, "no closing --#####", 0},
		{"not JSON", "格式为```#####--xxx--#####```", 1, 14, `unexpected word "xxx"`, 0},
		{"fenced JSON", "#####--\n```json\n{}\n```\n--#####", 2, 1, "unexpected '`'", 0},
		{"two values", "#####--\n{}\n{}\n--#####", 3, 1, "expected --#####", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			items := Parse([]byte(tc.text))
			checkItems(t, []byte(tc.text), items)
			if len(items) != 1+tc.afterSteps {
				t.Fatalf("got %d items, want %d: %+v", len(items), 1+tc.afterSteps, items)
			}
			e := items[0].Err
			if e == nil {
				t.Fatalf("first item is a step: %+v", items[0].Step)
			}
			if e.Pos.Line != tc.line || e.Pos.Col != tc.col || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("error %d:%d %q, want %d:%d containing %q", e.Pos.Line, e.Pos.Col, e.Msg, tc.line, tc.col, tc.msg)
			}
			for _, it := range items[1:] {
				if it.Step == nil {
					t.Errorf("after the broken block: %+v", it.Err)
				}
			}
		})
	}
}

// TestMarkerInContent: a closer and an opener inside a string are content,
// where the reference's regex would cut the block and lose the next one.
func TestMarkerInContent(t *testing.T) {
	text := "#####--\n{\"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"m\", \"file_content\": \"a --##### b #####-- c\"}]}\n--#####\n#####--\n{\"type\": \"finish\"}\n--#####\n"
	items := Parse([]byte(text))
	checkItems(t, []byte(text), items)
	if len(items) != 2 || items[0].Step == nil || items[1].Step == nil || !items[1].Step.Finish {
		t.Fatalf("items %+v", items)
	}
	if got := string(items[0].Step.Ops[0].Content); got != "a --##### b #####-- c" {
		t.Errorf("content %q", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range corpus(f) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("#####--#####--\n--#####--#####"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkItems(t, data, Parse(data))
	})
}

// response makes a response of about size bytes in blocks of about 10 kB,
// each block a mix of strict and loose JSON with prose between blocks.
func response(size int) []byte {
	var b bytes.Buffer
	line := "    for i in range(10):  # a line of code with \"quotes\" and \\ backslashes\n"
	body := strings.Repeat(line, 9800/len(line))
	esc := strings.NewReplacer("\\", "\\\\", "\"", "\\\"", "\n", "\\n").Replace(body)
	for n := 0; b.Len() < size; n++ {
		fmt.Fprintf(&b, "第 %d 步：修改文件。\n\n#####--\n", n)
		if n%2 == 0 {
			fmt.Fprintf(&b, "{\"metadata\": {\"step_id\": \"s%d\", \"reason\": \"edit\"}, \"type\": \"operate\", \"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"f%d.py\", \"file_content\": \"%s\"}]}\n", n, n, esc)
		} else {
			fmt.Fprintf(&b, "{\n  metadata: {step_id: \"s%d\", reason: \"edit\"} # loose\n  \"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"f%d.py\", \"file_content\": \"\"\"%s\"\"\"},]\n}\n", n, n, body)
		}
		b.WriteString("--#####\n\n")
	}
	return b.Bytes()
}

func benchmarkParse(b *testing.B, size int) {
	text := response(size)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		items := Parse(text)
		if len(items) == 0 || items[0].Step == nil {
			b.Fatal("no step")
		}
	}
}

func BenchmarkParse1MB(b *testing.B)  { benchmarkParse(b, 1<<20) }
func BenchmarkParse10MB(b *testing.B) { benchmarkParse(b, 10<<20) }

// TestBenchmarkResponse: the benchmark's response reads as it should, so the
// benchmark measures real work (1,000 blocks of about 10 kB in 10 MB).
func TestBenchmarkResponse(t *testing.T) {
	text := response(1 << 20)
	items := Parse(text)
	checkItems(t, text, items)
	for i, it := range items {
		if it.Step == nil {
			t.Fatalf("item %d: %v", i, it.Err)
		}
		if (i%2 == 1) != (len(it.Step.Repairs) > 0) {
			t.Fatalf("item %d: repairs %+v", i, it.Step.Repairs)
		}
	}
	if n := len(items); n < 90 || n > 110 {
		t.Errorf("%d blocks in 1 MB, want about 100", n)
	}
	if a, b := string(items[0].Step.Ops[0].Content), string(items[1].Step.Ops[0].Content); a != b {
		t.Errorf("strict and loose content differ")
	}
}

// TestFencedJSONHint: JSON fenced inside the markers is refused with a hint
// that says to drop the fence.
func TestFencedJSONHint(t *testing.T) {
	it := parseOne(t, "#####--\n```json\n{}\n```\n--#####")
	if it.Err == nil || !strings.Contains(it.Err.Hint(), "remove the ``` fence") {
		t.Fatalf("got %+v", it.Err)
	}
}
