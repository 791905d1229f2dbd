package tjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/autocoder/autocoder/textpos"
)

func parseAll(t *testing.T, src string) (any, []Repair, error) {
	t.Helper()
	v, end, reps, err := Parse([]byte(src), Start)
	if err == nil && strings.TrimSpace(src[end:]) != "" {
		t.Fatalf("Parse(%q) stopped at %d, leaving %q", src, end, src[end:])
	}
	return v, reps, err
}

// TestRepairs covers every tolerated deviation: the value read, and the
// repairs reported with their positions.
func TestRepairs(t *testing.T) {
	type rep struct {
		line, col int
		what      string // a substring of Repair.What
	}
	tests := []struct {
		name string
		src  string
		want any
		reps []rep
	}{
		{"triple double quotes", `{"a": """x "y" z"""}`, map[string]any{"a": `x "y" z`}, []rep{{1, 7, `"""-quoted`}}},
		{"triple single quotes", "['''it's\nok''']", []any{"it's\nok"}, []rep{{1, 2, `'''-quoted`}}},
		{"one-line triple decodes escapes (the seed's example)", "\"\"\"import pygame\\n\\nclass T:\\n    pass\"\"\"", "import pygame\n\nclass T:\n    pass", []rep{{1, 1, `"""-quoted string on one line, decoding its escapes`}}},
		{"multi-line triple is verbatim: backslashes kept", "\"\"\"import pygame\\n\\nclass T:\n    pass\"\"\"", "import pygame\\n\\nclass T:\n    pass", []rep{{1, 1, `"""-quoted string over several lines verbatim`}}},
		{"multi-line triple keeps source code as typed", "{\"c\": \"\"\"path = 'C:\\\\games'\nprint(\"say \\\"hi\\\"\")\nprint(\"a\\nb\")\n\"\"\"}",
			map[string]any{"c": "path = 'C:\\\\games'\nprint(\"say \\\"hi\\\"\")\nprint(\"a\\nb\")\n"}, []rep{{1, 7, "verbatim"}}},
		{"triple CRLF becomes LF, backslashes kept", "\"\"\"a\r\nb\\r\\n\"\"\"", "a\nb\\r\\n", []rep{{1, 1, `"""`}}},
		{"triple ending in a quote", `"""say "hi""""`, `say "hi"`, []rep{{1, 1, `"""`}}},
		{"empty triple", `""""""`, ``, []rep{{1, 1, `"""`}}},
		{"hash comment", "{\"a\": 1, # note\n\"b\": 2}", map[string]any{"a": 1.0, "b": 2.0}, []rep{{1, 10, "# comment"}}},
		{"slash comment", "[1, // note\n2]", []any{1.0, 2.0}, []rep{{1, 5, "// comment"}}},
		{"block comment", "[1, /* a\nb */ 2]", []any{1.0, 2.0}, []rep{{1, 5, "/* */"}}},
		{"leading comment", "# head\n{}", map[string]any{}, []rep{{1, 1, "# comment"}}},
		{"trailing comma object", `{"a": 1,}`, map[string]any{"a": 1.0}, []rep{{1, 8, "trailing comma"}}},
		{"trailing comma array", "[1,\n 2,\n]", []any{1.0, 2.0}, []rep{{2, 3, "trailing comma"}}},
		{"missing comma between members", "{\"status\": \"pending\"\n \"summary\": \"\"}", map[string]any{"status": "pending", "summary": ""}, []rep{{1, 21, `missing comma after the member "status"`}}},
		{"missing comma between elements", "[1\n2]", []any{1.0, 2.0}, []rep{{1, 3, "missing comma after element 1"}}},
		{"raw line breaks in a string", "{\"a\": \"x\ny\nz\"}", map[string]any{"a": "x\ny\nz"}, []rep{{1, 7, "raw line breaks"}}},
		{"raw CRLF in a string", "\"x\r\ny\"", "x\ny", []rep{{1, 1, "raw line breaks"}}},
		{"raw tab in a string", "\"a\tb\"", "a\tb", []rep{{1, 1, "raw tab"}}},
		{"unquoted key", `{step_id: "s1", 名字: 2}`, map[string]any{"step_id": "s1", "名字": 2.0}, []rep{{1, 2, "quoted the key step_id"}, {1, 17, "quoted the key 名字"}}},
		{"single-quoted string", `{'a': 'say "hi"'}`, map[string]any{"a": `say "hi"`}, []rep{{1, 2, "single-quoted"}, {1, 7, "single-quoted"}}},
		{"escaped single quote", `'it\'s'`, "it's", []rep{{1, 1, "single-quoted"}, {1, 4, `\'`}}},
		{"unknown escape kept", `"\d+\.py"`, `\d+\.py`, []rep{{1, 2, `\d as written (and 1 more`}}},
		{"column counts characters", "{\"名\": 1 # 注释\n}", map[string]any{"名": 1.0}, []rep{{1, 9, "# comment"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, reps, err := parseAll(t, tc.src)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.src, err)
			}
			if !reflect.DeepEqual(v, tc.want) {
				t.Errorf("Parse(%q) = %#v, want %#v", tc.src, v, tc.want)
			}
			if len(reps) != len(tc.reps) {
				t.Fatalf("Parse(%q) repairs = %+v, want %d", tc.src, reps, len(tc.reps))
			}
			for i, r := range tc.reps {
				got := reps[i]
				if got.Pos.Line != r.line || got.Pos.Col != r.col || !strings.Contains(got.What, r.what) {
					t.Errorf("repair %d = %d:%d %q, want %d:%d containing %q", i, got.Pos.Line, got.Pos.Col, got.What, r.line, r.col, r.what)
				}
			}
		})
	}
}

// TestErrors covers every error: the position, and that a hint is given.
func TestErrors(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int
		msg       string // a substring of Msg
		quote     string
	}{
		{"missing comma same line", `{"a": 1 "b": 2}`, 1, 9, "missing comma between members", `"b": 2}`},
		{"missing comma same line array", `[1 2]`, 1, 4, "missing comma between elements", `2]`},
		{"unterminated string", "{\"a\": \"abc\n\n", 1, 7, "the \" at line 1, column 7 is never closed", "\"abc"},
		{"unterminated triple", "{\"a\": \"\"\"abc\n", 1, 7, `the """ at line 1, column 7`, `"""abc`},
		{"unterminated object", "{\"a\": 1,\n", 2, 1, "the { at line 1, column 1 is never closed", ""},
		{"unterminated array", "[1, [2]", 1, 8, "the [ at line 1, column 1 is never closed", ""},
		{"unterminated comment", "[1 /* x", 1, 4, "unterminated /* comment", "/* x"},
		{"bare word", `{"a": yes}`, 1, 7, `unexpected word "yes"`, "yes}"},
		{"python literal", `[True]`, 1, 2, `unexpected word "True"`, "True]"},
		{"missing colon", `{"a" 1}`, 1, 6, "expected ':'", "1}"},
		{"bad key", `{1: 2}`, 1, 2, "expected a key", "1: 2}"},
		// The prompt's template annotates fields with bare prose: the words
		// read as a key, and the error is the missing ':' after them.
		{"stray text after member", "{\"type\": \"operate\",  读取文件内容\n}", 2, 1, "after the key \"读取文件内容\": expected ':'", "}"},
		{"unexpected char after value", `{"a": 1;}`, 1, 8, "expected ',' or '}'", ";}"},
		{"unexpected char in array", `[1;]`, 1, 3, "expected ',' or ']'", ";]"},
		{"empty input", ``, 1, 1, "expected a value", ""},
		{"unexpected char", `{"a": @}`, 1, 7, "expected a value", "@}"},
		{"leading zero", `[01]`, 1, 2, "leading zero", "01]"},
		{"bare minus", `[-]`, 1, 2, "no digit after '-'", "-]"},
		{"bare dot", `[1.]`, 1, 2, "no digit after '.'", "1.]"},
		{"bad exponent", `[1e+]`, 1, 2, "no digit in the exponent", "1e+]"},
		{"bad unicode escape", `"\u12"`, 1, 2, `malformed \u escape`, `\u12"`},
		{"control character", "\"a\x01b\"", 1, 3, "control character U+0001", "\x01b\""},
		{"too deep", strings.Repeat("[", MaxDepth+1), 1, MaxDepth + 1, "nesting deeper than", "["},
		{"second line column in characters", "{\n  \"名字\": x}", 2, 9, `unexpected word "x"`, "x}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := parseAll(t, tc.src)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error = %v, want *SyntaxError", tc.src, err)
			}
			if se.Line != tc.line || se.Col != tc.col || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("Parse(%q) = %d:%d %q, want %d:%d containing %q", tc.src, se.Line, se.Col, se.Msg, tc.line, tc.col, tc.msg)
			}
			if tc.quote != "" && !strings.HasPrefix(se.Quote, tc.quote) {
				t.Errorf("Parse(%q) quote = %q, want prefix %q", tc.src, se.Quote, tc.quote)
			}
			if se.Hint() == "" {
				t.Errorf("Parse(%q) has no hint", tc.src)
			}
		})
	}
}

// TestMultilineHint: when a string with raw line breaks swallows the text
// after it, the error points back at that string.
func TestMultilineHint(t *testing.T) {
	src := "{\"a\": \"one\n  \"b\": \"two\"}"
	_, _, err := parseAll(t, src)
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("error = %v, want *SyntaxError", err)
	}
	if !strings.Contains(se.Hint(), "line 1, column 7") {
		t.Errorf("hint %q does not name the string at 1:7", se.Hint())
	}
}

// TestOffsets: Parse starts at an offset, reports positions in document
// coordinates and stops right after the value.
func TestOffsets(t *testing.T) {
	doc := "前言\n#####--\n  {\"a\": [1,\n 2,]}  \n--#####"
	off := strings.Index(doc, "--") + 2
	start := textpos.Advance([]byte(doc), Start, off)
	if start.Line != 2 || start.Col != 8 {
		t.Fatalf("Advance = %+v, want 2:8", start)
	}
	n, end, reps, err := ParseNode([]byte(doc), start, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := doc[end:]; got != "  \n--#####" {
		t.Errorf("rest = %q", got)
	}
	if n.Pos.Line != 3 || n.Pos.Col != 3 || n.Pos.Offset != strings.Index(doc, "{") {
		t.Errorf("node pos = %+v", n.Pos)
	}
	if a := n.Get("a"); a == nil || a.Pos.Line != 3 || a.Pos.Col != 9 || len(a.Elems) != 2 || a.Elems[1].Pos.Line != 4 {
		t.Errorf("member a = %+v", a)
	}
	if len(reps) != 1 || reps[0].Pos.Line != 4 || reps[0].Pos.Col != 3 {
		t.Errorf("repairs = %+v", reps)
	}
}

// TestDuplicateKeys: the last one wins in Get and Value, as in encoding/json,
// and Members keeps all of them.
func TestDuplicateKeys(t *testing.T) {
	n, _, _, err := ParseNode([]byte(`{"a": 1, "a": 2}`), Start, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Members) != 2 || n.Get("a").Num != 2 || n.Value().(map[string]any)["a"] != 2.0 {
		t.Errorf("got %+v", n)
	}
}

// checkStrict is the fuzz property: on text encoding/json accepts, the reader
// returns the same value and no repair; when the reader accepts text without
// a repair, encoding/json accepts it too.
func checkStrict(t *testing.T, data []byte) {
	checkStrictMode(t, data)
	v, end, reps, err := Parse(data, Start)
	rest := bytes.TrimLeft(data[min(end, len(data)):], " \t\r\n")
	if !utf8.Valid(data) {
		// encoding/json accepts bytes that are not UTF-8 and makes them
		// U+FFFD; the reader refuses them (TestInvalidUTF8InAStringIsAnError).
		return
	}
	if json.Valid(data) {
		if err != nil {
			t.Fatalf("valid JSON %q: %v", data, err)
		}
		if len(reps) != 0 {
			t.Fatalf("valid JSON %q: repairs %+v", data, reps)
		}
		if len(rest) != 0 {
			t.Fatalf("valid JSON %q: stopped at %d", data, end)
		}
		var want any
		if json.Unmarshal(data, &want) != nil {
			return // a number beyond float64: encoding/json refuses the value
		}
		if !reflect.DeepEqual(v, want) {
			t.Fatalf("valid JSON %q: got %#v, want %#v", data, v, want)
		}
		return
	}
	if err == nil && len(reps) == 0 && len(rest) == 0 {
		t.Fatalf("invalid JSON %q read with no repair: %#v", data, v)
	}
}

func FuzzTolerant(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `""`, `0`, `-0.5e+3`, `true`, `null`, `"\u00e9\ud83d\ude00\ud800x"`,
		`{"a": [1, {"b": "c\n"}], "a": 2}`, "\"\xff\"", `"""x"""`, `{a: 1,}`, "[1\n2]",
		`"\/\b\f\n\r\t\\\""`, `1e400`,
	} {
		f.Add([]byte(s))
	}
	// Seed from the response corpus: the blocks of every autocoder JSON file.
	files, _ := filepath.Glob("../../testdata/responses/acjson-*.md")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, part := range bytes.Split(data, []byte("#####--")) {
			if i := bytes.Index(part, []byte("--#####")); i >= 0 {
				f.Add(part[:i])
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkStrict(t, data)
		// Positions must agree with the offsets they come with.
		n, _, reps, err := ParseNode(data, Start, nil)
		check := func(p Pos) {
			if want := textpos.Advance(data, Start, p.Offset); want != p {
				t.Fatalf("position %+v, want %+v", p, want)
			}
		}
		for _, r := range reps {
			check(r.Pos)
		}
		// Locating back from a later position agrees with walking forward.
		if len(data) > 0 {
			last := textpos.Advance(data, Start, len(data))
			for _, off := range []int{0, len(data) / 3, len(data) / 2, len(data) - 1} {
				for off > 0 && !utf8.RuneStart(data[off]) {
					off-- // positions are only ever asked for at a character
				}
				if got, want := textpos.Locate(data, Start, last, off), textpos.Advance(data, Start, off); got != want {
					t.Fatalf("Locate back to %d = %+v, want %+v", off, got, want)
				}
			}
		}
		var se *SyntaxError
		if errors.As(err, &se) {
			check(Pos{Offset: se.Offset, Line: se.Line, Col: se.Col})
		} else if err == nil {
			check(n.Pos)
		}
	})
}

func TestStrictEquivalence(t *testing.T) {
	for _, s := range []string{
		`{"metadata": {"step_id": "s1"}, "file_operations": [{"path": "a\\b\u0000", "n": -1.5E-3}]}`,
		"[\"\xe4\xb8\xad\xe6\x96\x87\", \"\xe4\xb8\", \"\\ud83d\\ude00\", \"\\udc00\\ud800\"]",
		` { "a" : [ ] , "b" : { } } `,
	} {
		checkStrict(t, []byte(s))
	}
}

// checkStrictMode is the fuzz property of ParseNodeStrict: it accepts a text
// (one value and white space) exactly when encoding/json does, and reads the
// same value.
func checkStrictMode(t *testing.T, data []byte) {
	n, end, err := ParseNodeStrict(data, Start)
	ok := err == nil && len(bytes.TrimLeft(data[end:], " \t\r\n")) == 0
	if !utf8.Valid(data) {
		// encoding/json accepts bytes that are not UTF-8 and makes them
		// U+FFFD; the reader refuses them (TestInvalidUTF8InAStringIsAnError).
		if ok && bytes.ContainsRune(data, '"') {
			t.Fatalf("strict reader on %q: accepted bytes that are not UTF-8", data)
		}
		return
	}
	if ok != json.Valid(data) {
		t.Fatalf("strict reader on %q: accepted %v (err %v), encoding/json %v", data, ok, err, json.Valid(data))
	}
	var want any
	if ok && json.Unmarshal(data, &want) == nil && !reflect.DeepEqual(n.Value(), want) {
		t.Fatalf("strict reader on %q: got %#v, want %#v", data, n.Value(), want)
	}
}

// TestStrictRepairIsError: in strict mode each deviation the tolerant
// reader repairs is a syntax error at the repair, saying what was wrong.
func TestStrictRepairIsError(t *testing.T) {
	for _, c := range []struct {
		text string
		col  int
		msg  string
	}{
		{`{"a": 1,}`, 8, "removed a trailing comma"},
		{`{a: 1}`, 2, "quoted the key a"},
		{`{"a": 'x'}`, 7, "read a single-quoted string"},
		{"{\"a\": 1 // n\n}", 9, "removed a // comment"},
		{"[\"a\nb\"]", 2, "kept raw line breaks inside a string"},
		{`["\d"]`, 3, `kept the unknown escape \d as written`},
		{"{\"a\": 1\n\"b\": 2}", 8, `added a missing comma after the member "a"`},
		{`"""x"""`, 1, `read a """-quoted string`},
	} {
		_, _, err := ParseNodeStrict([]byte(c.text), Start)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(se.Msg, c.msg) || se.Col != c.col || !strings.Contains(se.Hint(), "JSON.parse") {
			t.Errorf("%q: got %#v, want a syntax error at column %d naming %q", c.text, err, c.col, c.msg)
		}
		if _, _, reps, err := ParseNode([]byte(c.text), Start, nil); err != nil || len(reps) == 0 {
			t.Errorf("%q: the tolerant reader should repair it: %v %v", c.text, reps, err)
		}
	}
	n, end, err := ParseNodeStrict([]byte(`{"a": [1, "\u00e9"]} tail`), Start)
	if err != nil || end != 20 || n.Get("a").Elems[1].Text != "é" {
		t.Fatalf("strict JSON: %v, end %d", err, end)
	}
}
