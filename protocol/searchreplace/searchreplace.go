// Package searchreplace reads SEARCH/REPLACE edit blocks as models write them
// without autocoder's prompt (FORMATS.md 2): aider's blocks (a path line, an
// optional fence, <<<<<<< SEARCH / ======= / >>>>>>> REPLACE), Cline's tool
// calls written as text (<replace_in_file> with ------- SEARCH / ======= /
// +++++++ REPLACE blocks, and whole files in <write_to_file>) and Roo Code's
// <apply_diff> (with :start_line: and the ------- separator).
//
// Start reading at ParseText: the tool calls are found first (calls.go), then
// aider's blocks outside them (aider.go); feedback.go answers each in its
// tool's convention. One aider block, or one tool call with all its blocks,
// is one step: the engine applies it whole or not at all.
//
// Decisions a reader of this format should know ([rule]s of FORMATS.md):
//   - every SEARCH text must be found at exactly one place (the matcher's
//     rules): the peers' "first occurrence" is a refusal here, and Roo's
//     :start_line: is read and ignored for placement;
//   - an empty SEARCH creates a file or fills an empty one, never appends
//     to a file with content (step.Op.NoReplace);
//   - text that starts like a block but cannot be read (a SEARCH with no
//     REPLACE, two ======= dividers, a marker of a wrong shape, a fence that
//     closes inside a block, an unclosed tool call) is an error with its
//     line, never prose;
//   - a block that ends with a divider right before its closing fence (aider
//     accepts it; a real transcript has it) and a Cline call whose last
//     REPLACE marker is missing before </diff> are read, with a repair.
package searchreplace

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textpos"
)

// Dialect is this format's name in step.Step.Dialect and step.ParseError.
const Dialect = "search-replace"

// The flavours of block, in Source.Flavour.
const (
	Aider   = "aider"
	Cline   = "replace_in_file"
	Write   = "write_to_file"
	RooDiff = "apply_diff"
)

// Source is the reader's record of a block, kept in step.Step.Source for
// the feedback: which tool's convention to answer in, and the blocks as
// the model wrote them (quoted back when one fails).
type Source struct {
	Flavour string
	Path    string
	Blocks  []string // each SEARCH/REPLACE block's text as written
}

// ParseText returns the SEARCH/REPLACE blocks and tool calls of text in document
// order: a *step.Step for each that reads, a *step.ParseError for each that
// starts like one but cannot be read. Items never overlap.
func ParseText(t *fence.Text) []step.Item {
	text := t.Bytes
	// Every block, readable or not, has a SEARCH or REPLACE marker or a
	// tool's tag: a text with none is read no further.
	if !fence.Contains(text, " SEARCH") && !fence.Contains(text, " REPLACE") && !slices.ContainsFunc(tags, func(t tag) bool { return fence.Contains(text, t.open) }) {
		return nil
	}
	p := &parser{text: text, lines: splitLines(text), idx: t.Lines, fences: t.Blocks}
	calls := p.calls()
	aider := p.aider(calls)
	items := make([]step.Item, 0, len(calls)+len(aider))
	// Merge the two sorted lists.
	i, j := 0, 0
	for i < len(calls) || j < len(aider) {
		if j >= len(aider) || (i < len(calls) && calls[i].Start <= aider[j].Start) {
			items = append(items, calls[i])
			i++
		} else {
			items = append(items, aider[j])
			j++
		}
	}
	for n, it := range items {
		if it.Step != nil {
			it.Step.ID = fmt.Sprintf("%s-%d", Dialect, n+1)
		}
	}
	return items
}

// line is one line of the text: [start, end) without its line ending
// ("\n" or "\r\n"), next is where the next line starts.
type line struct{ start, end, next int }

func splitLines(text []byte) []line {
	var ls []line
	for pos := 0; pos < len(text); {
		end, next := len(text), len(text)
		if i := bytes.IndexByte(text[pos:], '\n'); i >= 0 {
			end, next = pos+i, pos+i+1
		}
		if end > pos && text[end-1] == '\r' {
			end--
		}
		ls = append(ls, line{pos, end, next})
		pos = next
	}
	return ls
}

type parser struct {
	text   []byte
	lines  []line
	idx    *textpos.Index
	fences []fence.Block // the fenced blocks of text
}

func (p *parser) at(i int) []byte { return p.text[p.lines[i].start:p.lines[i].end] }

func (p *parser) pos(off int) step.Pos { return p.idx.Pos(off) }

// lineOf returns the index of the line holding offset off.
func (p *parser) lineOf(off int) int {
	lo, hi := 0, len(p.lines)
	for lo < hi {
		m := (lo + hi) / 2
		if p.lines[m].next <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// errItem makes the item of a block that cannot be read, from start to end,
// with the error at offset at.
func (p *parser) errItem(start, end, at int, flavour, msg, fix string) step.Item {
	q := p.text[p.idx.LineStart(at):]
	if i := bytes.IndexByte(q, '\n'); i >= 0 {
		q = q[:i]
	}
	if len(q) > 80 {
		q = q[:80]
	}
	return step.Item{Start: start, End: end, Err: &step.ParseError{Dialect: Dialect, Pos: p.pos(at),
		Msg: msg, Quote: string(bytes.TrimRight(q, "\r")), Fix: fix, Source: flavour}}
}

// content joins lines [from, to) of the text as content: each line ends in
// "\n" whatever ending the response gave it, so the response's line
// endings never reach a file (the engine gives the text the file's).
func (p *parser) content(from, to int) []byte {
	var b []byte
	for i := from; i < to; i++ {
		b = append(b, p.at(i)...)
		b = append(b, '\n')
	}
	return b
}

// run counts the leading bytes of l equal to c.
func run(l []byte, c byte) int {
	n := 0
	for n < len(l) && l[n] == c {
		n++
	}
	return n
}

// isBlank reports whether l holds only spaces and tabs.
func isBlank(l []byte) bool { return len(bytes.Trim(l, " \t")) == 0 }

// looksLikeMarker reports a line that is meant as a marker: a run of marker
// characters and the word SEARCH or REPLACE. One that is not a marker of
// the format (`<<-- SEARCH`, `-------SEARCH`, `<<<<<<< SEARCH>>`) must be
// refused, not read as content.
func looksLikeMarker(l []byte) bool {
	t := bytes.TrimSpace(l)
	if len(t) == 0 || strings.IndexByte("<>-+=", t[0]) < 0 {
		return false
	}
	t = bytes.TrimRight(t, ">")
	return bytes.HasSuffix(t, []byte("SEARCH")) || bytes.HasSuffix(t, []byte("REPLACE"))
}
