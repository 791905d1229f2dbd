package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/protocol/tjson"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textpos"
)

// block is one request found in the text: the JSON value and where it came
// from, or the error that kept it from being read.
type block struct {
	start, end int   // the item's span: opener line to closing fence (or value end)
	open       int   // offset of the opener (fence or bare marker), for Step.Pos
	tree       *node // the request, when it was read
	repairs    []step.Repair
	err        *step.ParseError
}

// doc is the response text with its line index (textpos), for turning
// offsets into 1-based line:column positions.
type doc struct {
	text []byte
	idx  *textpos.Index
}

func newDoc(text []byte) *doc {
	return &doc{text: text, idx: textpos.NewIndex(text)}
}

// pos returns the position of a byte offset, in characters (textpos).
func (d *doc) pos(off int) step.Pos { return d.idx.Pos(off) }

// line returns the line that starts at off: its content without the line
// ending, and the offset of the next line.
func (d *doc) line(off int) (content []byte, next int) {
	end := bytes.IndexByte(d.text[off:], '\n')
	if end < 0 {
		return bytes.TrimSuffix(d.text[off:], []byte("\r")), len(d.text)
	}
	return bytes.TrimSuffix(d.text[off:off+end], []byte("\r")), off + end + 1
}

// quote returns a short piece of the line around off, for error messages.
func (d *doc) quote(off int) string {
	off = min(max(off, 0), len(d.text))
	start := d.idx.LineStart(off)
	line, _ := d.line(start)
	rel := off - start
	from, to := max(rel-20, 0), min(rel+30, len(line))
	for from > 0 && !utf8.RuneStart(line[from]) {
		from--
	}
	for to < len(line) && !utf8.RuneStart(line[to]) {
		to++
	}
	if from > to {
		return ""
	}
	return strings.TrimSpace(string(line[from:to]))
}

const marker = "mcp-request"

// mayHold reports whether text may hold a request: every block starts at a
// fence or a bare line that names the marker, in any letter case (the
// first nine letters, "mcp-reque", fold to no other runes). Most texts
// have none, and are read no further; a 'q' or 'Q' is rare enough to look
// for first.
func mayHold(text []byte) bool {
	const head = "mcp-reque"
	q := strings.IndexByte(head, 'q')
	for _, c := range []byte{'q', 'Q'} {
		for off := q; off < len(text); {
			i := bytes.IndexByte(text[off:], c)
			if i < 0 {
				break
			}
			if at := off + i - q; at+len(head) <= len(text) && bytes.EqualFold(text[at:at+len(head)], []byte(head)) {
				return true
			}
			off += i + 1
		}
	}
	return false
}

// isRequestInfo reports whether a fence's info string marks a request: its
// first word is mcp-request (in any letter case). Anything after the word
// is kept by CommonMark as attributes and ignored here.
func isRequestInfo(info string) bool {
	word, _, _ := strings.Cut(info, " ")
	return strings.EqualFold(word, marker)
}

// The wrapper rule is structural (DIALECTS.md §2), not a list of button
// words: a chat page puts short labels around a code block ("copy",
// "copy download", "复制代码", "json") and they come along when the text is
// copied. A wrapper line is short (at most maxWrapperRunes characters in at
// most maxWrapperWords words), holds a letter (a label, not a stray "}" or
// "]") and no '{', and is no fence line; at most
// maxWrapperLines of them are skipped before the JSON object starts, so
// that a lone label followed by prose is not read as a request and the
// look-ahead stays bounded (each line is looked at a constant number of
// times: the scan stays linear).
const (
	maxWrapperRunes = 24
	maxWrapperWords = 3
	maxWrapperLines = 4
)

func isWrapper(line []byte) bool {
	t := bytes.TrimSpace(line)
	// The byte length rejects the common case, a long line, before any
	// per-character work (which showed in profiles of 10 MB responses).
	if len(t) == 0 || len(t) > 4*maxWrapperRunes || bytes.IndexByte(t, '{') >= 0 {
		return false
	}
	if utf8.RuneCount(t) > maxWrapperRunes || len(bytes.Fields(t)) > maxWrapperWords || bytes.IndexFunc(t, unicode.IsLetter) < 0 {
		return false
	}
	_, isFence := fence.Open(t)
	return !isFence
}

// bareMarker reports whether a line is the bare label of a request whose
// fence was lost in copying: "mcp-request", perhaps run together with a
// button's text ("mcp-request复制", "mcp-request copy download").
func bareMarker(line []byte) bool {
	s := bytes.TrimSpace(line)
	if len(s) < len(marker) || !strings.EqualFold(string(s[:len(marker)]), marker) {
		return false
	}
	rest := bytes.TrimSpace(s[len(marker):])
	return len(rest) == 0 || isWrapper(rest)
}

func isBlank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }

// closers indexes the lines that can close a fence (a fence run with no
// info string) by character and run length, so that finding a block's
// closing line is a lookup rather than a scan to the end of the text: a
// response of many unclosed fences would otherwise cost quadratic time.
type closers struct {
	// at[c][n] holds, in order, the offsets of the lines of n of character
	// c (backtick 0, tilde 1); runs of maxRun or more share the last list.
	at [2][maxRun + 1][]int
}

const maxRun = 16

func charIndex(c byte) int {
	if c == '~' {
		return 1
	}
	return 0
}

func newClosers(d *doc) *closers {
	cl := &closers{}
	for off := 0; off < len(d.text); {
		line, next := d.line(off)
		if f, ok := fence.Open(line); ok && f.Info == "" {
			cl.at[charIndex(f.Char)][min(f.Len, maxRun)] = append(cl.at[charIndex(f.Char)][min(f.Len, maxRun)], off)
		}
		off = next
	}
	return cl
}

// next returns the offset of the first line at or after off that closes f,
// and the offset of the line after it.
func (cl *closers) next(d *doc, off int, f fence.Block) (at, after int, ok bool) {
	at = -1
	for n := min(f.Len, maxRun); n <= maxRun; n++ {
		list := cl.at[charIndex(f.Char)][n]
		for i := sort.SearchInts(list, off); i < len(list) && (at < 0 || list[i] < at); i++ {
			line, _ := d.line(list[i])
			// Only the last list mixes run lengths (fences of maxRun
			// characters or more); elsewhere the first entry closes. So the
			// lookup is constant but for openers longer than maxRun, which
			// may pass over shorter long closers: no model writes those.
			if f.Closes(line) {
				at = list[i]
				break
			}
		}
	}
	if at < 0 {
		return 0, 0, false
	}
	_, after = d.line(at)
	return at, after, true
}

// findBlocks finds every request in the text, in document order:
//   - a fenced block whose info string is mcp-request (strict);
//   - the same with no closing fence: the block ends with its JSON value;
//   - a bare "mcp-request" line followed by the JSON (the fence was lost);
//   - in all of these, blank lines and chat-page wrapper lines (isWrapper:
//     short labels such as "Copy code", "copy download", "复制", "json")
//     before the JSON and after it.
//
// Every tolerated deviation is recorded as a repair. Other fenced blocks
// (mcp-response, json, a quoted prompt) are skipped whole, so requests
// quoted inside them are not read; an other fence that is never closed is
// taken as a stray line, so that it cannot hide the rest of the response.
func findBlocks(d *doc) []block {
	var out []block
	cl := newClosers(d)
	for off := 0; off < len(d.text); {
		line, next := d.line(off)
		if f, ok := fence.Open(line); ok {
			if isRequestInfo(f.Info) {
				b := d.readFenced(cl, off, next, f)
				out = append(out, b)
				off = b.end
				continue
			}
			if _, end, ok := cl.next(d, next, f); ok {
				off = end
				continue
			}
		} else if bareMarker(line) {
			if b, ok := d.readBare(off, next); ok {
				out = append(out, b)
				off = b.end
				continue
			}
		}
		off = next
	}
	return out
}

// skipWrappers skips blank lines and up to maxWrapperLines wrapper lines
// from off, recording a repair for each wrapper line, and returns the
// offset of the first other line (limit if none) and of the first line
// that is not blank (-1 if none), where an error about the block points.
func (d *doc) skipWrappers(off, limit int, b *block) (stop, first int) {
	first = -1
	skipped := 0
	for off < limit {
		line, next := d.line(off)
		switch {
		case isBlank(line):
		case skipped < maxWrapperLines && isWrapper(line):
			if first < 0 {
				first = off
			}
			skipped++
			b.repairs = append(b.repairs, step.Repair{Pos: d.pos(off),
				What: fmt.Sprintf("skipped the line %q that a chat page puts around code blocks", strings.TrimSpace(string(line)))})
		default:
			if first < 0 {
				first = off
			}
			return off, first
		}
		off = next
	}
	return limit, first
}

func (d *doc) fail(b *block, off int, msg, hint string) {
	b.err = &step.ParseError{Dialect: Dialect, Pos: d.pos(off), Msg: msg, Quote: d.quote(off), Fix: hint}
}

// firstNonSpace returns the first offset from off that is not white space.
func (d *doc) firstNonSpace(off int) int {
	for off < len(d.text) && strings.IndexByte(" \t\r\n", d.text[off]) >= 0 {
		off++
	}
	return off
}

func (d *doc) readFenced(cl *closers, open, body int, f fence.Block) block {
	b := block{start: open, open: open}
	closeAt, closeEnd, closed := cl.next(d, body, f)
	limit := len(d.text)
	if closed {
		limit = closeAt
	} else {
		closeEnd = len(d.text)
	}
	p, first := d.skipWrappers(body, limit, &b)
	p = min(d.firstNonSpace(p), limit)
	if first < 0 {
		b.end = closeEnd
		d.fail(&b, open, "the mcp-request block is empty",
			`write one JSON-RPC request in it: {"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{…}}`)
		return b
	}
	if p >= limit || d.text[p] != '{' {
		// No JSON object after the short lines: they were not a chat
		// page's wrappers but the block's (wrong) content.
		b.repairs = nil
		p = d.firstNonSpace(first)
	}
	end, ok := d.readValue(&b, p, limit)
	if !ok {
		b.end = closeEnd
		if !closed && b.err.Pos.Offset < len(d.text) {
			_, b.end = d.line(d.idx.LineStart(b.err.Pos.Offset))
		}
		return b
	}
	// What follows the value decides whether the fence is closed. The
	// wrapper lines skipped here are repairs only if the block takes them.
	var trail block
	after, _ := d.skipWrappers(end, limit, &trail)
	switch {
	case after >= limit && closed:
		b.end = closeEnd
		b.repairs = append(b.repairs, trail.repairs...)
	case after < limit && (d.text[d.firstNonSpace(after)] == '{' || d.text[d.firstNonSpace(after)] == '['):
		b.end = closeEnd
		d.fail(&b, d.firstNonSpace(after), "a second JSON value in one mcp-request block",
			"write one request per block, each in its own ```mcp-request fence")
	case closed && !d.opensBefore(after, limit):
		// Prose between the value and the closing fence: taking the block
		// as unclosed would leave its closing line to open a new fence.
		b.end = closeEnd
		d.fail(&b, after, "text after the JSON value inside the mcp-request block",
			"an mcp-request block holds the JSON request only; put explanations outside the fence")
	default:
		// Not followed by its closing fence, and a later block begins
		// before that fence line (or there is none): this fence was never
		// closed. The block ends with the value.
		b.end = end
		b.repairs = append(b.repairs, step.Repair{Pos: d.pos(open), What: "the ```mcp-request fence is not closed; the block ends where its JSON value ends"})
	}
	return b
}

// opensBefore reports whether a fence line or a bare marker starts between
// off and limit.
func (d *doc) opensBefore(off, limit int) bool {
	for off < limit {
		line, next := d.line(off)
		if _, ok := fence.Open(line); ok || bareMarker(line) {
			return true
		}
		off = next
	}
	return false
}

func (d *doc) readBare(open, body int) (block, bool) {
	b := block{start: open, open: open}
	b.repairs = append(b.repairs, step.Repair{Pos: d.pos(open), What: "a bare mcp-request line without a code fence"})
	p, _ := d.skipWrappers(body, len(d.text), &b)
	p = d.firstNonSpace(p)
	if p >= len(d.text) || d.text[p] != '{' {
		// A lone label followed by prose is not a request: nothing to read.
		return block{}, false
	}
	end, ok := d.readValue(&b, p, len(d.text))
	if !ok {
		_, b.end = d.line(d.idx.LineStart(b.err.Pos.Offset))
		return b, true
	}
	b.end = end
	// A closing fence whose opening line was lost belongs to this block;
	// left behind, it would open a fence that hides what follows.
	var trail block
	after, _ := d.skipWrappers(end, len(d.text), &trail)
	if after < len(d.text) {
		if line, next := d.line(after); isBareCloser(line) {
			b.end = next
			b.repairs = append(b.repairs, trail.repairs...)
		}
	}
	return b, true
}

// isBareCloser reports whether a line is a fence with no info string, as
// a closing fence is.
func isBareCloser(line []byte) bool {
	f, ok := fence.Open(line)
	return ok && f.Info == ""
}

// readValue reads the JSON object at p (before limit) with tjson's strict
// reader: the dialect's contract is that JSON.parse accepts the request, so
// nothing is repaired. A value that does not read is worded by
// encoding/json, whose messages are the ones a model has seen from
// JSON.parse-like parsers. It returns the offset after the rest of the
// value's line, which must be blank.
func (d *doc) readValue(b *block, p, limit int) (int, bool) {
	if c := d.text[p]; c != '{' {
		msg := "the block does not hold a JSON object"
		if c == '[' {
			msg = "a JSON array (a batch) in an mcp-request block"
		}
		d.fail(b, p, msg, `write one JSON-RPC request object per block: {"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"…"}}}`)
		return 0, false
	}
	at := d.pos(p)
	n, end, err := tjson.ParseNodeStrict(d.text[:limit], tjson.Pos{Offset: p, Line: at.Line, Col: at.Col})
	if err == nil {
		b.tree = buildTree(n)
		return d.afterValue(b, end)
	}
	dec := json.NewDecoder(bytes.NewReader(d.text[p:limit]))
	var raw json.RawMessage
	var se *json.SyntaxError
	switch derr := dec.Decode(&raw); {
	case errors.As(derr, &se):
		at := p + max(int(se.Offset)-1, 0)
		d.fail(b, at, "malformed JSON: "+se.Error(), jsonHint)
	case derr != nil: // io.ErrUnexpectedEOF: the value never ends
		at := p + len(bytes.TrimRight(d.text[p:limit], " \t\r\n"))
		d.fail(b, at, "malformed JSON: the request ends before its closing brace", jsonHint+"; close every { and [ and every string")
	default: // the two readers agree on what is JSON (tjson's fuzz property); keep tjson's words
		var te *tjson.SyntaxError
		errors.As(err, &te)
		d.fail(b, te.Offset, "malformed JSON: "+te.Msg, jsonHint)
	}
	return 0, false
}

// afterValue checks that nothing but a wrapper follows the value on its
// line, and returns where the next line starts.
func (d *doc) afterValue(b *block, end int) (int, bool) {
	line, next := d.line(end)
	if !isBlank(line) && !isWrapper(line) {
		d.fail(b, d.firstNonSpace(end), "text after the JSON value on its line",
			"nothing may follow the request's closing brace; check for an extra } or ]")
		return 0, false
	}
	return next, true
}

const jsonHint = "the block must be valid JSON (JSON.parse must accept it): no comments, no trailing commas, strings in double quotes"
