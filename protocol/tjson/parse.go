package tjson

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/autocoder/autocoder/textpos"
)

// ParseNodeStrict is ParseNode (with no stop) for strict RFC 8259 JSON, for a dialect whose
// contract is that JSON.parse accepts the text (FlyCode MCP): the first
// deviation that ParseNode would repair is a *SyntaxError instead, at the
// place of the repair. It accepts exactly what encoding/json accepts and
// reads the same values (the fuzz property), and it has ParseNode's linear
// cost.
func ParseNodeStrict(data []byte, start Pos) (node *Node, end int, err error) {
	node, end, _, err = parseNode(&parser{data: data, off: start.Offset, start: start, cur: start, strict: true})
	return node, end, err
}

// ParseNode reads one JSON value starting at start.Offset (leading white
// space and comments skipped) and returns its tree, the byte offset just
// after the value (trailing white space is not consumed), and the repairs it
// needed. On failure err is a *SyntaxError and end is the offset of the error.
//
// stop, when not nil, is the opener of the next block of a larger text
// (autocoder JSON's "#####--"): stop outside a string ends the value's text
// there, as the end of the text would. Without it, a # comment reads stop's
// line as a comment and goes on into the next block, and a response of many
// broken blocks is read again from each of them: quadratic. With it, each
// block's reading ends at the next block's opener unless a string holds it.
//
// The reader is recursive descent with one frame per nesting level, bounded
// by MaxDepth, and reads each byte a constant number of times: its cost is
// linear in the length of the text.
func ParseNode(data []byte, start Pos, stop []byte) (node *Node, end int, repairs []Repair, err error) {
	return parseNode(&parser{data: data, off: start.Offset, start: start, cur: start, stop: stop})
}

func parseNode(p *parser) (node *Node, end int, repairs []Repair, err error) {
	defer func() {
		// A syntax error unwinds the descent in one step instead of being
		// threaded through every return; nothing else is recovered.
		if r := recover(); r != nil {
			se, ok := r.(*SyntaxError)
			if !ok {
				panic(r)
			}
			node, end, repairs, err = nil, se.Offset, p.repairs, se
		}
	}()
	p.skipSpace()
	n := p.value()
	return n, p.off, p.repairs, nil
}

type parser struct {
	data    []byte
	off     int
	start   Pos // position of the first byte the parser was given
	cur     Pos // last position computed, to advance from
	depth   int
	repairs []Repair
	// multiline is the start of the last ordinary string that held a raw
	// line break: when the text later fails to parse, that string's closing
	// quote is the likeliest thing missing, and the hint says so.
	multiline *Pos
	buf       []byte // scratch for strings with escapes
	stop      []byte // see ParseNodeUntil; nil: none
	// strict makes every repair a syntax error (ParseNodeStrict).
	strict bool
}

// pos returns the document position of byte offset off. Positions are asked
// for in increasing order almost always; the few steps back are short.
func (p *parser) pos(off int) Pos {
	p.cur = textpos.Locate(p.data, p.start, p.cur, off)
	return p.cur
}

func (p *parser) repair(off int, format string, args ...any) {
	if p.strict {
		p.fail(off, strictHint, "not strict JSON: a tolerant reader %s", fmt.Sprintf(format, args...))
	}
	p.repairs = append(p.repairs, Repair{Pos: p.pos(off), What: fmt.Sprintf(format, args...)})
}

// strictHint is the advice for text that only a tolerant reader accepts.
const strictHint = `write strict JSON, as JSON.parse accepts it: keys and strings in double quotes, no comments, no trailing commas, line breaks and tabs in strings as \n and \t`

// fail stops the parse with a syntax error at off.
func (p *parser) fail(off int, hint, format string, args ...any) {
	pos := p.pos(off)
	if p.multiline != nil {
		hint = fmt.Sprintf("%s (or, if the string at line %d, column %d, which holds a raw line break, lacks its closing quote, add it)", hint, p.multiline.Line, p.multiline.Col)
	}
	panic(&SyntaxError{Line: pos.Line, Col: pos.Col, Offset: off, Msg: fmt.Sprintf(format, args...), Quote: Quote(p.data, off), Fix: hint, Suspect: p.multiline})
}

// Quote returns a short piece of the text at off, up to the end of its
// line: what an error message quotes.
func Quote(data []byte, off int) string {
	if off >= len(data) {
		return ""
	}
	q := data[off:]
	if i := bytes.IndexAny(q, "\r\n"); i >= 0 {
		q = q[:i]
	}
	const max = 40
	if len(q) > max {
		q = q[:max]
		for len(q) > 0 && !utf8.Valid(q) {
			q = q[:len(q)-1]
		}
	}
	return string(q)
}

// describe names the text at off for an error message.
func (p *parser) describe(off int) string {
	if off >= len(p.data) {
		return "the end of the text"
	}
	r, _ := utf8.DecodeRune(p.data[off:])
	return strconv.QuoteRune(r)
}

// skipSpace skips white space and comments and reports whether it crossed a
// line break (which is what makes a missing comma unambiguous).
func (p *parser) skipSpace() (newline bool) {
	d := p.data
	for p.off < len(d) {
		switch c := d[p.off]; c {
		case ' ', '\t', '\r':
			p.off++
		case '\n':
			newline = true
			p.off++
		case '#':
			p.atStop()
			p.repair(p.off, "removed a # comment")
			p.skipLine()
		case '/':
			if p.off+1 < len(d) && d[p.off+1] == '/' {
				p.repair(p.off, "removed a // comment")
				p.skipLine()
			} else if p.off+1 < len(d) && d[p.off+1] == '*' {
				p.repair(p.off, "removed a /* */ comment")
				i := bytes.Index(d[p.off+2:p.stopAfter(p.off+2)], []byte("*/"))
				if i < 0 {
					p.fail(p.off, "close the comment with */", "unterminated /* comment")
				}
				if bytes.IndexByte(d[p.off+2:p.off+2+i], '\n') >= 0 {
					newline = true
				}
				p.off += 2 + i + 2
			} else {
				return newline
			}
		default:
			return newline
		}
	}
	return newline
}

// atStop fails when the text at p.off is the stop marker: the next block
// begins, and this one's value is not complete.
func (p *parser) atStop() {
	if p.stop != nil && bytes.HasPrefix(p.data[p.off:], p.stop) {
		p.fail(p.off, "complete this block's JSON value and end the block before the next one begins",
			"unexpected start of the next block (%s) outside a string: expected a value", p.stop)
	}
}

// stopAfter is where the text ends for a comment that starts at off: at the
// next stop marker, or the end of the text.
func (p *parser) stopAfter(off int) int {
	if p.stop != nil {
		if i := bytes.Index(p.data[off:], p.stop); i >= 0 {
			return off + i
		}
	}
	return len(p.data)
}

func (p *parser) skipLine() {
	if i := bytes.IndexByte(p.data[p.off:], '\n'); i >= 0 {
		p.off += i
	} else {
		p.off = len(p.data)
	}
}

func (p *parser) value() *Node {
	d := p.data
	if p.off >= len(d) {
		p.fail(p.off, "write a JSON value: an object {…}, an array […], a string, a number, true, false or null", "unexpected end of the text: expected a value")
	}
	switch c := d[p.off]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"' || c == '\'':
		at := p.pos(p.off)
		s := p.str()
		return &Node{Kind: String, Pos: at, End: p.off, Text: s}
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case identStart(d[p.off:]):
		return p.word()
	default:
		p.fail(p.off, "write a JSON value: an object {…}, an array […], a string in double quotes, a number, true, false or null", "unexpected %s: expected a value", p.describe(p.off))
	}
	panic("unreachable")
}

// word reads true, false or null; any other bare word is an error, since a
// value is never guessed from it.
func (p *parser) word() *Node {
	start := p.off
	w := p.ident()
	n := &Node{Pos: p.pos(start), End: p.off}
	switch w {
	case "true":
		n.Kind, n.Bool = Bool, true
	case "false":
		n.Kind = Bool
	case "null":
		n.Kind = Null
	case "True", "False", "None":
		want := map[string]string{"True": "true", "False": "false", "None": "null"}[w]
		p.fail(start, fmt.Sprintf("JSON spells it %s", want), "unexpected word %q: expected a value", w)
	default:
		p.fail(start, fmt.Sprintf("put text in double quotes: %q", w), "unexpected word %q: expected a value", w)
	}
	return n
}

// identStart reports whether b starts with a letter, '_' or '$'.
func identStart(b []byte) bool {
	r, _ := utf8.DecodeRune(b)
	return r == '_' || r == '$' || unicode.IsLetter(r)
}

// ident reads an identifier: letters, digits, '_' and '$'.
func (p *parser) ident() string {
	start := p.off
	for p.off < len(p.data) {
		r, n := utf8.DecodeRune(p.data[p.off:])
		if r != '_' && r != '$' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		p.off += n
	}
	return string(p.data[start:p.off])
}

func (p *parser) enter(off int) {
	p.depth++
	if p.depth > MaxDepth {
		p.fail(off, "flatten the value", "nesting deeper than %d levels", MaxDepth)
	}
}

func (p *parser) object() *Node {
	start := p.off
	p.enter(start)
	n := &Node{Kind: Object, Pos: p.pos(start)}
	p.off++ // {
	p.skipSpace()
	if p.off < len(p.data) && p.data[p.off] == '}' {
		p.off++
		p.depth--
		n.End = p.off
		return n
	}
	for {
		keyPos := p.pos(p.off)
		var key string
		switch {
		case p.off >= len(p.data):
			p.unclosed(start, '{')
		case p.data[p.off] == '"' || p.data[p.off] == '\'':
			key = p.str()
		case identStart(p.data[p.off:]):
			key = p.ident()
			p.repair(keyPos.Offset, "quoted the key %s", key)
		default:
			p.fail(p.off, `write the key in double quotes, as in "name": value`, "unexpected %s: expected a key", p.describe(p.off))
		}
		p.skipSpace()
		if p.off >= len(p.data) {
			p.unclosed(start, '{')
		}
		if p.data[p.off] != ':' {
			p.fail(p.off, fmt.Sprintf(`write a colon after the key: "%s": value`, key), "unexpected %s after the key %q: expected ':'", p.describe(p.off), key)
		}
		p.off++
		p.skipSpace()
		v := p.value()
		n.Members = append(n.Members, Member{Key: key, KeyPos: keyPos, Value: v})
		after := p.off
		newline := p.skipSpace()
		if p.off >= len(p.data) {
			p.unclosed(start, '{')
		}
		switch c := p.data[p.off]; {
		case c == '}':
			p.off++
			p.depth--
			n.End = p.off
			return n
		case c == ',':
			comma := p.off
			p.off++
			p.skipSpace()
			if p.off < len(p.data) && p.data[p.off] == '}' {
				p.repair(comma, "removed a trailing comma")
				p.off++
				p.depth--
				n.End = p.off
				return n
			}
		case c == '"' || c == '\'' || identStart(p.data[p.off:]):
			if !newline {
				p.fail(p.off, fmt.Sprintf("put a comma after the value of %q", key), "missing comma between members on the same line")
			}
			p.repair(after, "added a missing comma after the member %q", key)
		default:
			p.fail(p.off, fmt.Sprintf("after the value of %q write ',' and the next member, or '}'", key), "unexpected %s after the member %q: expected ',' or '}'", p.describe(p.off), key)
		}
	}
}

func (p *parser) array() *Node {
	start := p.off
	p.enter(start)
	n := &Node{Kind: Array, Pos: p.pos(start)}
	p.off++ // [
	p.skipSpace()
	if p.off < len(p.data) && p.data[p.off] == ']' {
		p.off++
		p.depth--
		n.End = p.off
		return n
	}
	for {
		if p.off >= len(p.data) {
			p.unclosed(start, '[')
		}
		n.Elems = append(n.Elems, p.value())
		after := p.off
		newline := p.skipSpace()
		if p.off >= len(p.data) {
			p.unclosed(start, '[')
		}
		switch c := p.data[p.off]; {
		case c == ']':
			p.off++
			p.depth--
			n.End = p.off
			return n
		case c == ',':
			comma := p.off
			p.off++
			p.skipSpace()
			if p.off < len(p.data) && p.data[p.off] == ']' {
				p.repair(comma, "removed a trailing comma")
				p.off++
				p.depth--
				n.End = p.off
				return n
			}
		case valueStart(p.data[p.off:]):
			if !newline {
				p.fail(p.off, "put a comma between the elements", "missing comma between elements on the same line")
			}
			p.repair(after, "added a missing comma after element %d", len(n.Elems))
		default:
			p.fail(p.off, "after an element write ',' and the next element, or ']'", "unexpected %s after element %d: expected ',' or ']'", p.describe(p.off), len(n.Elems))
		}
	}
}

func valueStart(b []byte) bool {
	switch c := b[0]; {
	case c == '{' || c == '[' || c == '"' || c == '\'' || c == '-' || (c >= '0' && c <= '9'):
		return true
	}
	return identStart(b)
}

// unclosed fails at the end of the text, naming where the container opened.
func (p *parser) unclosed(start int, open byte) {
	at := p.pos(start)
	close := map[byte]byte{'{': '}', '[': ']'}[open]
	p.fail(len(p.data), fmt.Sprintf("close the %c opened at line %d, column %d with %c", open, at.Line, at.Col, close),
		"unexpected end of the text: the %c at line %d, column %d is never closed", open, at.Line, at.Col)
}

func (p *parser) number() *Node {
	d := p.data
	start := p.off
	i := p.off
	if d[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i - j
	}
	bad := func(why string) {
		p.fail(start, "write numbers as JSON does: -12, 0.5, 1e3 (no leading zeros, a digit on both sides of '.')", "malformed number: %s", why)
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
		if i < len(d) && d[i] >= '0' && d[i] <= '9' {
			bad("leading zero")
		}
	case digits() == 0:
		bad("no digit after '-'")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			bad("no digit after '.'")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			bad("no digit in the exponent")
		}
	}
	text := string(d[start:i])
	// A literal beyond float64's range yields ±Inf and ErrRange; the literal
	// itself stays in Text for a caller that cares.
	f, _ := strconv.ParseFloat(text, 64)
	p.off = i
	return &Node{Kind: Number, Pos: p.pos(start), End: i, Num: f, Text: text}
}
