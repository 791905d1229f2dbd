// Package acjson reads and writes the autocoder JSON dialect: JSON objects
// between the markers #####-- and --##### (DIALECTS.md §1, seeds 000 and
// 001).
//
// Start reading at Parse: it finds every opener, reads one JSON value after
// it with the tolerant reader (protocol/tjson) and expects the closer right
// after that value, so a file_content holding --##### is read whole and a
// response with many blocks gives many steps. shape.go maps the JSON to a
// step.Step; feedback.go writes the executor's answer.
//
// Strict first: a block whose JSON encoding/json accepts carries no repair.
// The step is always built from the tolerant reader's tree, because that
// tree knows the line and column of every field (for errors that point at
// the field), and on strict JSON it is the same value encoding/json reads
// (the FuzzTolerant property of tjson). Every repair the tolerant reader
// records is a construct encoding/json refuses, so encoding/json checks only
// the blocks that needed none; the repairs of the others go into
// Step.Repairs.
//
// Decisions a reader of this dialect should know:
//   - a missing "type" means "operate"; "operate/finish" copied from the
//     prompt's template is an error, since either reading would be a guess;
//   - a missing step_id becomes "step-N", N the block's 1-based number in
//     the document; a program without a name becomes "program-N";
//   - unknown fields are ignored and recorded as a Repair (a misspelt
//     "file_contents" would otherwise vanish silently), except those the
//     prompts themselves show (metadata.timestamp, metadata.type and a
//     program's reason), which are ignored without one;
//   - a field that the action does not use (modify_content on create_file,
//     an empty file_content beside modify_content, as the template has
//     them) is ignored with a Repair; a field given twice is an error.
package acjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/autocoder/autocoder/step"

	"github.com/autocoder/autocoder/protocol/tjson"
	"github.com/autocoder/autocoder/textpos"
)

// Dialect is the name of this dialect in step.Step.Dialect and step.ParseError.
const Dialect = "autocoder-json"

// The markers around a block.
var (
	Opener = []byte("#####--")
	Closer = []byte("--#####")
)

// Parse returns the blocks of text in document order: a *step.Step for each
// block that reads unambiguously, a *step.ParseError for each that does not.
// Start and End of each item are the byte offsets of the block's markers
// (End exclusive); items never overlap. A broken block ends at its closer
// (found the way the reference's regular expression finds it), and reading
// goes on after it.
func Parse(text []byte) []step.Item {
	r := reader{text: text, cur: tjson.Start}
	var items []step.Item
	for from, n := 0, 1; ; n++ {
		i := bytes.Index(text[from:], Opener)
		if i < 0 {
			return items
		}
		item := r.block(from+i, n)
		items = append(items, item)
		from = item.End
	}
}

type reader struct {
	text []byte
	cur  tjson.Pos // last position computed, to advance from
	// found remembers, per marker, the last search: from where, and the
	// offset found (-1: none up to the end). The blocks are read in order,
	// so a search that starts inside a range already searched reuses its
	// answer: a text with no closer is searched once, not once per block.
	found map[string][2]int
}

// find returns the offset of the first m at or after at, or -1.
func (r *reader) find(m []byte, at int) int {
	if r.found == nil {
		r.found = map[string][2]int{}
	}
	if f, ok := r.found[string(m)]; ok && at >= f[0] && (f[1] < 0 || at <= f[1]) {
		return f[1]
	}
	got := -1
	if i := bytes.Index(r.text[at:], m); i >= 0 {
		got = at + i
	}
	r.found[string(m)] = [2]int{at, got}
	return got
}

// pos returns the document position of byte offset off; offsets are asked
// for in increasing order almost always, so the cost is linear overall.
func (r *reader) pos(off int) tjson.Pos {
	r.cur = textpos.Locate(r.text, textpos.Start, r.cur, off)
	return r.cur
}

// block reads the block whose opener is at start; n is its 1-based number.
func (r *reader) block(start, n int) step.Item {
	text := r.text
	valOff := start + len(Opener)
	at := step.Pos(r.pos(start)) // before valOff: positions are asked for in order
	node, end, reps, err := tjson.ParseNode(text, r.pos(valOff), Opener)
	if err != nil {
		var se *tjson.SyntaxError
		if !errors.As(err, &se) {
			panic(fmt.Sprintf("tjson returned %T, not *SyntaxError", err))
		}
		return r.broken(start, valOff, se)
	}
	j := skipWhite(text, end)
	if !bytes.HasPrefix(text[j:], Closer) {
		return r.noCloser(start, j)
	}
	item := step.Item{Start: start, End: j + len(Closer)}
	// Strict first. Every repair of the tolerant reader is a construct
	// encoding/json refuses, so a block with repairs is not strict and
	// needs no second reading; a block without is checked by encoding/json.
	var repairs []step.Repair
	for _, rp := range reps {
		repairs = append(repairs, step.Repair{Pos: step.Pos(rp.Pos), What: rp.What})
	}
	if len(reps) == 0 && !json.Valid(text[valOff:end]) {
		// The readers disagree (FuzzTolerant guards against it): say so
		// rather than call the block strict.
		repairs = append(repairs, step.Repair{Pos: at, What: "encoding/json refuses this block; it was read tolerantly"})
	}
	st, perr := build(node, n, at, repairs)
	if perr != nil {
		perr.Quote = tjson.Quote(text, perr.Pos.Offset)
		item.Err = perr
	} else {
		item.Step = st
	}
	return item
}

// broken makes the error of a block whose JSON cannot be read, ending the
// block where extent says.
func (r *reader) broken(start, valOff int, se *tjson.SyntaxError) step.Item {
	text := r.text
	end, closeAt := r.extent(valOff, max(se.Offset, valOff))
	perr := &step.ParseError{
		Dialect: Dialect,
		Pos:     step.Pos{Offset: se.Offset, Line: se.Line, Col: se.Col},
		Msg:     se.Msg,
		Quote:   se.Quote,
		Fix:     se.Fix,
	}
	if bytes.HasPrefix(text[min(se.Offset, len(text)):], []byte("```")) {
		// Models sometimes fence the JSON inside the markers; the reference
		// refuses that too, and reading past a fence would be a guess.
		perr.Fix = "remove the ``` fence lines between #####-- and --#####: the markers hold the JSON itself"
	}
	if se.Offset > end || (se.Offset == end && bytes.HasPrefix(text[end:], Opener)) {
		// The reader failed beyond the block: a string left open, or a #
		// comment that took the next opener's line, read on past the
		// block's end. Point inside the block, and say where reading
		// stopped.
		open := r.pos(start)
		var what string
		var at tjson.Pos
		switch {
		case closeAt >= 0:
			at = r.pos(closeAt)
			what = fmt.Sprintf("its --##### at line %d", at.Line)
		case end < len(text):
			at = r.pos(end)
			what = fmt.Sprintf("the next #####-- at line %d", at.Line)
		default:
			at = r.pos(end)
			what = "the end of the text"
		}
		perr.Msg = fmt.Sprintf("the JSON of the block opened at line %d is not complete before %s (reading on, at line %d, column %d: %s)",
			open.Line, what, se.Line, se.Col, se.Msg)
		perr.Fix = "close every string, { and [ of the block, and end it with --#####"
		if s := se.Suspect; s != nil && s.Offset >= start && s.Offset < end {
			at = *s
			perr.Msg = fmt.Sprintf("the string at line %d, column %d runs on past the end of the block (%s)", s.Line, s.Col, what)
			perr.Fix = "close the string with its quote before the end of the line where its text ends"
		}
		perr.Pos = step.Pos(at)
		perr.Quote = tjson.Quote(text, at.Offset)
		return step.Item{Start: start, End: end, Err: perr}
	}
	switch {
	case closeAt < 0:
		at := r.pos(start)
		perr.Msg += fmt.Sprintf("; the block opened at line %d has no closing --#####", at.Line)
		perr.Fix += "; end every block with --##### on a line of its own"
	case closeAt == se.Offset:
		perr.Msg = fmt.Sprintf("the block ends at line %d (--#####) but its JSON is not complete: %s", se.Line, se.Msg)
		perr.Fix = "close every { with } and every [ with ] before --#####"
	case closeAt < se.Offset:
		// The reader ran past the block's end into later text: a string
		// or a comment left open swallowed the closer.
		at := r.pos(closeAt)
		perr.Msg += fmt.Sprintf("; the block ends before this, at line %d (--#####)", at.Line)
		perr.Fix += fmt.Sprintf("; a string or comment left open runs past the --##### at line %d: check the quotes before it", at.Line)
	default:
		if c := bytes.Index(text[valOff:se.Offset], Closer); c >= 0 {
			// The reference would have ended the block at this closer;
			// say that it was read as content, so the model sees both.
			at := r.pos(valOff + c)
			perr.Fix += fmt.Sprintf("; note: the --##### at line %d, column %d was read as part of a string", at.Line, at.Col)
		}
		at := r.pos(closeAt)
		perr.Msg += fmt.Sprintf(" (the block ends at line %d)", at.Line)
	}
	return step.Item{Start: start, End: end, Err: perr}
}

// noCloser makes the error of a block whose JSON value reads but is not
// followed by --#####; j is where the closer was expected.
func (r *reader) noCloser(start, j int) step.Item {
	end, closeAt := r.extent(j, j)
	at := r.pos(j)
	perr := &step.ParseError{
		Dialect: Dialect,
		Pos:     step.Pos(at),
		Quote:   tjson.Quote(r.text, j),
	}
	if j >= len(r.text) {
		perr.Msg = "the block has no closing --##### after its JSON value"
		perr.Fix = "end the block with --##### right after the closing }"
	} else {
		perr.Msg = "unexpected text after the block's JSON value: expected --#####"
		perr.Fix = "end the block with --##### right after the closing }; put prose after --#####, and a second value in a block of its own"
		if closeAt >= 0 {
			c := r.pos(closeAt)
			perr.Msg += fmt.Sprintf(" (the block ends at line %d)", c.Line)
		} else {
			perr.Msg += " (and no --##### follows)"
		}
	}
	return step.Item{Start: start, End: end, Err: perr}
}

// extent finds where a broken block ends, the way the reference's regular
// expression #####--\s*(.*?)\s*--##### would: at the first closer after
// from. Two refinements keep the next blocks readable: when another opener
// comes before any closer, the broken block ends where that opener begins;
// and when the reader failed (at failAt) past the first closer with no
// opener in between, that closer was content inside a string, and the block
// ends at the first closer after the failure. closeAt is the closer's
// offset, or -1 when the block has none.
func (r *reader) extent(from, failAt int) (end, closeAt int) {
	find := r.find
	c0, o := find(Closer, from), find(Opener, from)
	switch {
	case c0 < 0 || (o >= 0 && o < c0):
		if o >= 0 {
			return o, -1
		}
		return len(r.text), -1
	case failAt <= c0 || (o >= 0 && o < failAt):
		return c0 + len(Closer), c0
	}
	if c1 := find(Closer, failAt); c1 >= 0 && (o < 0 || c1 < o) {
		return c1 + len(Closer), c1
	}
	return c0 + len(Closer), c0
}

func skipWhite(text []byte, i int) int {
	for i < len(text) {
		switch text[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}
