package fence

import (
	"bytes"
	"strings"
	"testing"
)

// view is the part of a Block a table case states.
type view struct {
	Char     byte
	Len      int
	Info     string
	Content  string
	Line     int
	EndLine  int
	Closed   bool
	Lines    int
	startEnd [2]int
}

func TestScan(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []view
	}{
		{"no fence", "just prose\n``not a fence``\n", nil},
		{"simple", "```go\na\nb\n```\n",
			[]view{{'`', 3, "go", "a\nb\n", 1, 4, true, 2, [2]int{0, 14}}}},
		{"empty block", "~~~~~\n~~~~~\n",
			[]view{{'~', 5, "", "", 1, 2, true, 0, [2]int{0, 12}}}},
		{"one empty line", "~~~\n\n~~~\n",
			[]view{{'~', 3, "", "\n", 1, 3, true, 1, [2]int{0, 9}}}},
		{"longer closing closes", "~~~\nx\n~~~~~~\nafter\n",
			[]view{{'~', 3, "", "x\n", 1, 3, true, 1, [2]int{0, 13}}}},
		{"shorter run is content", "~~~~~act\n~~~~\nx\n~~~~~\n",
			[]view{{'~', 5, "act", "~~~~\nx\n", 1, 4, true, 2, [2]int{0, 22}}}},
		{"other char is content", "~~~~~content\n```py\nprint()\n```\n~~~~~\n",
			[]view{{'~', 5, "content", "```py\nprint()\n```\n", 1, 5, true, 3, [2]int{0, 37}}}},
		{"closing with info is content", "```\n```py\n```\n",
			[]view{{'`', 3, "", "```py\n", 1, 3, true, 1, [2]int{0, 14}}}},
		{"trailing space after closing", "~~~\nx\n~~~ \t\n",
			[]view{{'~', 3, "", "x\n", 1, 3, true, 1, [2]int{0, 12}}}},
		{"backtick in backtick info is no fence", "```a`b\nx\n", nil},
		{"backtick in tilde info is allowed", "~~~a`b\nx\n~~~\n",
			[]view{{'~', 3, "a`b", "x\n", 1, 3, true, 1, [2]int{0, 13}}}},
		{"four spaces is no fence", "    ~~~\nx\n    ~~~\n", nil},
		{"indent removed from content", "  ~~~\n    a\n b\nc\n  ~~~\n",
			[]view{{'~', 3, "", "  a\nb\nc\n", 1, 5, true, 3, [2]int{0, 23}}}},
		{"closing may be indented", "~~~\nx\n   ~~~\n",
			[]view{{'~', 3, "", "x\n", 1, 3, true, 1, [2]int{0, 13}}}},
		{"crlf", "~~~~~path\r\na.txt\r\n~~~~~\r\n",
			[]view{{'~', 5, "path", "a.txt\n", 1, 3, true, 1, [2]int{0, 25}}}},
		{"lone cr inside a line is kept", "~~~\na\rb\n~~~\n",
			[]view{{'~', 3, "", "a\rb\n", 1, 3, true, 1, [2]int{0, 12}}}},
		{"unclosed", "prose\n~~~~~act\nwrite_file\n",
			[]view{{'~', 5, "act", "write_file\n", 2, 3, false, 1, [2]int{6, 26}}}},
		{"unclosed without final newline", "~~~\nabc",
			[]view{{'~', 3, "", "abc\n", 1, 2, false, 1, [2]int{0, 7}}}},
		{"unclosed opening line only", "~~~",
			[]view{{'~', 3, "", "", 1, 1, false, 0, [2]int{0, 3}}}},
		{"no final newline after closing", "~~~\nx\n~~~",
			[]view{{'~', 3, "", "x\n", 1, 3, true, 1, [2]int{0, 9}}}},
		{"two blocks and prose", "a\n```\n1\n```\nb\n~~~ x y \n2\n~~~\n",
			[]view{
				{'`', 3, "", "1\n", 2, 4, true, 1, [2]int{2, 12}},
				{'~', 3, "x y", "2\n", 6, 8, true, 1, [2]int{14, 29}},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Scan([]byte(c.text))
			if len(got) != len(c.want) {
				t.Fatalf("Scan(%q): %d blocks, want %d: %+v", c.text, len(got), len(c.want), got)
			}
			for i, b := range got {
				v := view{b.Char, b.Len, b.Info, string(b.Content), b.Line, b.EndLine, b.Closed, b.Lines, [2]int{b.Start, b.End}}
				if v != c.want[i] {
					t.Errorf("block %d:\n got %+v\nwant %+v", i, v, c.want[i])
				}
				checkBlock(t, []byte(c.text), b)
			}
		})
	}
}

func TestScanChar(t *testing.T) {
	text := "```\n~~~~~act\n```\n~~~~~act\nx\n~~~~~\n```\ny\n```\n"
	// With both characters the first ``` block hides the first act.
	all := Scan([]byte(text))
	if len(all) != 3 || all[1].Info != "act" || all[1].Line != 4 {
		t.Fatalf("Scan: %+v", all)
	}
	// From line 4 with tildes only, backtick lines are text.
	from := strings.Index(text, "~~~~~act\nx")
	got := ScanChar([]byte(text), '~', from)
	if len(got) != 1 || got[0].Line != 4 || string(got[0].Content) != "x\n" || got[0].End != from+17 {
		t.Fatalf("ScanChar(~): %+v", got)
	}
	// Tildes only from the start: "~~~~~act" has an info string, so it is
	// content of the first act block rather than its closing line.
	got = ScanChar([]byte(text), '~', 0)
	if len(got) != 1 || string(got[0].Content) != "```\n~~~~~act\nx\n" || got[0].Line != 2 {
		t.Fatalf("ScanChar(~, 0): %+v", got)
	}
}

// checkBlock asserts the invariants every block holds.
func checkBlock(t *testing.T, text []byte, b Block) {
	t.Helper()
	if !(0 <= b.Start && b.Start < b.ContentStart || b.Start < len(text) && b.ContentStart == len(text)) {
		t.Fatalf("offsets out of order: %+v", b)
	}
	if !(b.ContentStart <= b.ContentEnd && b.ContentEnd <= b.End && b.End <= len(text)) {
		t.Fatalf("offsets out of order: %+v", b)
	}
	if b.Start > 0 && text[b.Start-1] != '\n' {
		t.Fatalf("block does not start a line: %+v", b)
	}
	if got := 1 + bytes.Count(text[:b.Start], []byte{'\n'}); got != b.Line {
		t.Fatalf("Line %d, offset %d is on line %d", b.Line, b.Start, got)
	}
	if b.Closed {
		if got := 1 + bytes.Count(text[:b.ContentEnd], []byte{'\n'}); got != b.EndLine {
			t.Fatalf("EndLine %d, closing offset %d is on line %d", b.EndLine, b.ContentEnd, got)
		}
	} else if b.End != len(text) {
		t.Fatalf("unclosed block ends before the text: %+v", b)
	}
	// Content is the raw content lines with CRLF and indent removed: putting
	// each line back (indent spaces may have been removed) must give raw.
	raw := text[b.ContentStart:b.ContentEnd]
	if b.Lines == 0 {
		if len(b.Content) != 0 || len(bytes.TrimRight(raw, "\r\n")) != 0 && b.Closed {
			t.Fatalf("no lines but content %q raw %q", b.Content, raw)
		}
		return
	}
	if len(b.Content) == 0 || b.Content[len(b.Content)-1] != '\n' {
		t.Fatalf("content %q does not end in a newline", b.Content)
	}
	cl := strings.Split(strings.TrimSuffix(string(b.Content), "\n"), "\n")
	rl := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(cl) != b.Lines || len(rl) != b.Lines {
		t.Fatalf("Lines %d, content has %d, raw has %d", b.Lines, len(cl), len(rl))
	}
	for i := range cl {
		r := strings.TrimSuffix(rl[i], "\r")
		if !strings.HasSuffix(r, cl[i]) || strings.Trim(r[:len(r)-len(cl[i])], " ") != "" || len(r)-len(cl[i]) > b.Indent {
			t.Fatalf("content line %q is not raw line %q less up to %d spaces", cl[i], rl[i], b.Indent)
		}
	}
}

// FuzzScan checks the scanner's properties on any text: blocks are disjoint
// and in order, each starts with a fence line and holds its content lines,
// and a text with no fence line yields no block.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"", "```\n", "~~~~~act\nwrite_file\n~~~~~\n", "  ```go\r\n  x\r\n  ```\r\n",
		"~~~\n```\n~~~\n```\n", "````\n```\n````", " ~~~ a`b\n\n\n ~~~~ \n",
		"a\n```\nb\n```\nc\n~~~~~\nd\n~~~~~\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		blocks := Scan(text)
		prev := 0
		for _, b := range blocks {
			if b.Start < prev {
				t.Fatalf("block at %d overlaps the previous one ending at %d", b.Start, prev)
			}
			checkBlock(t, text, b)
			if _, ok := opening(firstLine(text[b.Start:]), 0); !ok {
				t.Fatalf("block at %d does not start with a fence line", b.Start)
			}
			prev = b.End
		}
		for i, b := range blocks {
			if !b.Closed && i != len(blocks)-1 {
				t.Fatalf("unclosed block %d is not the last", i)
			}
		}
		if !hasFenceLine(text) && len(blocks) != 0 {
			t.Fatalf("no fence line in %q but %d blocks", text, len(blocks))
		}
		// One character only: still well formed, and never more blocks than
		// that character has fence lines.
		for _, c := range []byte{'`', '~'} {
			for _, b := range ScanChar(text, c, 0) {
				if b.Char != c {
					t.Fatalf("ScanChar(%q) returned a %q block", c, b.Char)
				}
				checkBlock(t, text, b)
			}
		}
	})
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// hasFenceLine reports, independently of Scan, whether some line of text
// could open a block.
func hasFenceLine(text []byte) bool {
	for _, l := range strings.Split(string(text), "\n") {
		l = strings.TrimSuffix(l, "\r")
		t := strings.TrimLeft(l, " ")
		if len(l)-len(t) > 3 {
			continue
		}
		if strings.HasPrefix(t, "~~~") {
			return true
		}
		if strings.HasPrefix(t, "```") && !strings.Contains(strings.TrimLeft(t, "`"), "`") {
			return true
		}
	}
	return false
}

func TestPathLine(t *testing.T) {
	for line, want := range map[string]string{
		"src/app.py":                    "src/app.py",
		"### src/app.py":                "src/app.py",
		"**app/models.py**:":            "app/models.py",
		"`src/file1.py`":                "src/file1.py",
		"# file1.py":                    "file1.py",
		"dir name with spaces/file.txt": "dir name with spaces/file.txt",
		"Makefile":                      "Makefile",
		"Run it like this:":             "",
		"Here is the fix for app.py.":   "",
		"Output:":                       "",
		"...":                           "",
		"":                              "",
		"--- a/app.py":                  "",
		"<<<<<<< SEARCH":                "",
		"Create `hello.py`:":            "",
		"print(\"a.b\")":                "",
		"+++ b/x.py":                    "",
	} {
		if got := PathLine([]byte(line)); got != want {
			t.Errorf("PathLine(%q) = %q, want %q", line, got, want)
		}
		if again := PathLine([]byte(want)); want != "" && again != want {
			t.Errorf("PathLine(%q) = %q: a path must read as itself", want, again)
		}
	}
}
