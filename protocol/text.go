package protocol

import (
	"bytes"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/protocol/wholefile"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textkind"
	"github.com/autocoder/autocoder/textpos"
)

// Reading says how Read took the response text: the encoding it was in and
// the reasoning sections it skipped. parse prints it, so that a person sees
// why a block inside <think> was not applied.
type Reading struct {
	// Encoding is "utf-8", "utf-8 with a byte-order mark", or "utf-16le" /
	// "utf-16be", each "with a byte-order mark" or "without a byte-order
	// mark" (told by the pattern of NUL bytes).
	Encoding string `json:"encoding"`
	// Skipped lists the reasoning sections (<think>…</think>) whose text
	// was not read for instructions.
	Skipped []Skipped `json:"skipped,omitempty"`
	// Examples lists the fenced blocks outside every instruction block
	// that have no file path marker: examples, never writes (FORMATS.md 5).
	Examples []Example `json:"examples,omitempty"`
}

// Example is one fenced block that was read as an example, not a file.
type Example struct {
	Line  int    `json:"line" jsonschema:"the opening fence's line"`
	Info  string `json:"info,omitempty" jsonschema:"the fence's info string (its language)"`
	Fence string `json:"fence" jsonschema:"the opening fence's run of backticks or tildes"`
}

// Skipped is one reasoning section: where it is and how many instruction
// blocks it held (drafts, not instructions).
type Skipped struct {
	Start  step.Pos `json:"start"`
	End    step.Pos `json:"end"`
	Blocks int      `json:"blocks"`
}

// Notes says what Reading records, one sentence per fact worth telling.
func (r Reading) Notes() []string {
	var ns []string
	if r.Encoding != "" && r.Encoding != "utf-8" {
		ns = append(ns, "read the response as "+r.Encoding)
	}
	for _, s := range r.Skipped {
		ns = append(ns, fmt.Sprintf("skipped the reasoning section <think>…</think> at lines %d-%d "+
			"and the %d instruction block%s inside it: a draft is not an instruction",
			s.Start.Line, s.End.Line, s.Blocks, plural(s.Blocks)))
	}
	for _, x := range r.Examples {
		fence := x.Fence + x.Info
		ns = append(ns, fmt.Sprintf("skipped the %s fence at line %d: no file path on the line right above it, "+
			"so it is an example, not a write (to write a file, put its path on the line above the fence)", fence, x.Line))
	}
	return ns
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Read finds every block of every dialect in raw, as Parse does, after
// taking the text as the same response however it arrived: a UTF-8 or
// UTF-16 byte-order mark is dropped, UTF-16 (with or without a mark) is
// decoded, and the reasoning section a reasoning model prints before its
// answer (<think>…</think>) is skipped. CRLF line ends need nothing here:
// every reader takes "\r\n" as a line end. Positions are in the text as
// decoded; lines are the same as in raw.
func Read(raw []byte) ([]step.Item, Reading) {
	text, enc := Decode(raw)
	rd := Reading{Encoding: enc}
	if s, e, ok := thinkSection(text); ok {
		// Blank the section, keeping its line breaks, so that every
		// position after it stays what it was in the text.
		inner := parseAll(fence.NewText(text[s:e]))
		text = bytes.Clone(text)
		for i := s; i < e; i++ {
			if text[i] != '\n' && text[i] != '\r' {
				text[i] = ' '
			}
		}
		rd.Skipped = append(rd.Skipped, Skipped{Start: textpos.Of(text, s), End: textpos.Of(text, e), Blocks: len(inner)})
	}
	t := fence.NewText(text)
	items := parseAll(t)
	rd.Examples = examples(t, items)
	return items, rd
}

// examples are the fences that no block holds and that have no path
// marker, for Reading.Examples.
func examples(t *fence.Text, items []step.Item) []Example {
	var out []Example
	k := 0
	for _, u := range wholefile.Examples(t) {
		for k < len(items) && items[k].End <= u.Start {
			k++
		}
		if k < len(items) && items[k].Start < u.End {
			continue // inside (or across) a block: the block's content
		}
		out = append(out, Example{Line: u.Line, Info: u.Info, Fence: u.Fence})
	}
	return out
}

// Decode returns raw as UTF-8 text and names the encoding it was in. A
// byte-order mark tells UTF-8; UTF-16, with or without its mark, is told
// by textkind.UTF16, the rule the matcher refuses UTF-16 files by.
// Anything else is returned as it is: the readers refuse what is not
// UTF-8 where it matters.
func Decode(raw []byte) ([]byte, string) {
	if bytes.HasPrefix(raw, []byte{0xEF, 0xBB, 0xBF}) {
		return raw[3:], "utf-8 with a byte-order mark"
	}
	bigEndian, bom, ok := textkind.UTF16(raw)
	if !ok {
		return raw, "utf-8"
	}
	name, mark := "utf-16le", " without a byte-order mark"
	if bigEndian {
		name = "utf-16be"
	}
	if bom {
		raw, mark = raw[2:], " with a byte-order mark"
	}
	return decodeUTF16(raw, bigEndian), name + mark
}

func decodeUTF16(b []byte, bigEndian bool) []byte {
	u := make([]uint16, len(b)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			u[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
		}
	}
	out := make([]byte, 0, len(u))
	for _, r := range utf16.Decode(u) {
		out = utf8.AppendRune(out, r)
	}
	return out
}

// thinkSection finds the reasoning section at the start of a response:
// from a <think> tag that opens the text (after white space) to the end of
// the first </think>; or, when the text holds a </think> before any <think>
// (the chat template wrote the opening tag, so the model's text starts
// inside the section), from the start to it. An unclosed <think> runs to
// the end of the text: all of it is draft. Only the leading section counts,
// so a tag quoted later, inside a file's content, is content.
func thinkSection(text []byte) (start, end int, ok bool) {
	open, closing := []byte("<think>"), []byte("</think>")
	lead := len(text) - len(bytes.TrimLeft(text, " \t\r\n"))
	c := bytes.Index(text, closing)
	switch {
	case bytes.HasPrefix(text[lead:], open):
		if c < 0 {
			return lead, len(text), true
		}
		return lead, c + len(closing), true
	case c >= 0 && !bytes.Contains(text[:c], open):
		return 0, c + len(closing), true
	}
	return 0, 0, false
}
