package protocol

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/autocoder/autocoder/step"
)

// render is an item without its byte offsets, which a byte-order mark or
// UTF-16 shifts: what must not change however the text arrives.
func render(items []step.Item) string {
	var b strings.Builder
	for _, it := range items {
		if it.Err != nil {
			fmt.Fprintf(&b, "error %d:%d %s\n", it.Err.Pos.Line, it.Err.Pos.Col, it.Err.Msg)
			continue
		}
		s := it.Step
		fmt.Fprintf(&b, "%s %s line %d %q\n", s.Dialect, s.ID, s.Pos.Line, s.Reason)
		for _, op := range s.Ops {
			fmt.Fprintf(&b, "  %s %s %q %v\n", op.Kind, op.Path, op.Content, op.Edits)
		}
	}
	return b.String()
}

func utf16Bytes(s string, bigEndian, bom bool) []byte {
	var out []byte
	u := utf16.Encode([]rune(s))
	if bom {
		u = append([]uint16{0xFEFF}, u...)
	}
	for _, c := range u {
		if bigEndian {
			out = append(out, byte(c>>8), byte(c))
		} else {
			out = append(out, byte(c), byte(c>>8))
		}
	}
	return out
}

// A byte-order mark, CRLF line ends and UTF-16 (with or without a mark)
// are read as the same response (DIALECTS.md, general rules).
func TestTextArrivesInAnyEncoding(t *testing.T) {
	plan := "好的，我来改。\n\n~~~~~act\nwrite_file 说明.md\n~~~~~\n~~~~~\n# 标题\nline\n~~~~~\n\n" +
		"#####--\n{\"metadata\": {\"step_id\": \"j\"}, \"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"a.txt\", \"file_content\": \"x\\n\"}]}\n--#####\n"
	want := render(Parse([]byte(plan)))
	if !strings.Contains(want, "axon-1") || !strings.Contains(want, "autocoder-json j") {
		t.Fatalf("the plain plan itself is not read:\n%s", want)
	}
	crlf := strings.ReplaceAll(plan, "\n", "\r\n")
	for _, c := range []struct {
		name string
		raw  []byte
		enc  string
	}{
		{"utf-8 BOM", append([]byte{0xEF, 0xBB, 0xBF}, plan...), "utf-8 with a byte-order mark"},
		{"CRLF", []byte(crlf), "utf-8"},
		{"BOM and CRLF", append([]byte{0xEF, 0xBB, 0xBF}, crlf...), "utf-8 with a byte-order mark"},
		{"utf-16le BOM", utf16Bytes(crlf, false, true), "utf-16le with a byte-order mark"},
		{"utf-16be BOM", utf16Bytes(plan, true, true), "utf-16be with a byte-order mark"},
		{"utf-16le no BOM", utf16Bytes(plan, false, false), "utf-16le without a byte-order mark"},
		{"utf-16be no BOM", utf16Bytes(crlf, true, false), "utf-16be without a byte-order mark"},
	} {
		items, rd := Read(c.raw)
		if got := render(items); got != want {
			t.Errorf("%s: read as\n%s\nwant\n%s", c.name, got, want)
		}
		if rd.Encoding != c.enc {
			t.Errorf("%s: encoding %q, want %q", c.name, rd.Encoding, c.enc)
		}
	}
}

// Blocks inside a reasoning section are drafts: skipped, and said so.
func TestThinkSectionIsSkipped(t *testing.T) {
	draft := "~~~~~act\ndelete_file everything.txt\n~~~~~\n"
	answer := "~~~~~act\nwrite_file a.txt\n~~~~~\n~~~~~\nA\n~~~~~\n"
	for _, c := range []struct {
		name, text string
		lines      [2]int
	}{
		{"think first", "<think>\nLet me delete it:\n" + draft + "No, write instead.\n</think>\n\n" + answer, [2]int{1, 7}},
		{"opening tag in the template", "Let me delete it:\n" + draft + "</think>\n" + answer, [2]int{1, 5}},
	} {
		items, rd := Read([]byte(c.text))
		if len(items) != 1 || items[0].Step == nil || items[0].Step.Ops[0].Path != "a.txt" {
			t.Errorf("%s: items %s", c.name, render(items))
		}
		if len(rd.Skipped) != 1 || rd.Skipped[0].Blocks != 1 || rd.Skipped[0].Start.Line != c.lines[0] || rd.Skipped[0].End.Line != c.lines[1] {
			t.Errorf("%s: skipped %+v", c.name, rd.Skipped)
		}
		notes := strings.Join(rd.Notes(), "\n")
		if !strings.Contains(notes, "skipped the reasoning section") || !strings.Contains(notes, "1 instruction block ") {
			t.Errorf("%s: notes %q", c.name, notes)
		}
		checkItems(t, []byte(c.text), items)
	}
	// A <think> tag later in the text, inside a file's content, is content.
	text := answer[:strings.Index(answer, "A\n")] + "<think>\nnot a section\n</think>\n~~~~~\n"
	items, rd := Read([]byte(text))
	if len(rd.Skipped) != 0 || len(items) != 1 || !bytes.Contains(items[0].Step.Ops[0].Content, []byte("<think>")) {
		t.Errorf("a quoted tag was taken for a section: %+v %s", rd.Skipped, render(items))
	}
}
