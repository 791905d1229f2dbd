package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"sort"
	"strings"
	"unicode/utf8"
)

// block is one request found in the text: the JSON value and where it came
// from, or the error that kept it from being read.
type block struct {
	start, end int // the item's span: opener line to closing fence (or value end)
	open       int // offset of the opener (fence or bare marker), for Step.Pos
	value      []byte
	valueOff   int
	repairs    []step.Repair
	err        *step.ParseError
}

// doc is the response text with its line starts, for turning offsets into
// 1-based line:column positions.
type doc struct {
	text   []byte
	starts []int
}

func newDoc(text []byte) *doc {
	d := &doc{text: text, starts: []int{0}}
	for i, c := range text {
		if c == '\n' {
			d.starts = append(d.starts, i+1)
		}
	}
	return d
}

// pos returns the position of a byte offset. Columns count characters
// (runes), not bytes, so that a column points at the right place in Chinese
// prose too.
func (d *doc) pos(off int) step.Pos {
	off = min(max(off, 0), len(d.text))
	i := sort.Search(len(d.starts), func(i int) bool { return d.starts[i] > off }) - 1
	return step.Pos{Offset: off, Line: i + 1, Col: 1 + utf8.RuneCount(d.text[d.starts[i]:off])}
}

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
	i := sort.Search(len(d.starts), func(i int) bool { return d.starts[i] > off }) - 1
	line, _ := d.line(d.starts[i])
	rel := off - d.starts[i]
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

// fence is a CommonMark fence line: up to three spaces, three or more
// backticks or tildes, then the info string.
type fence struct {
	char byte
	n    int
	info string
}

func parseFence(line []byte) (fence, bool) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i >= len(line) || (line[i] != '`' && line[i] != '~') {
		return fence{}, false
	}
	c := line[i]
	n := 0
	for i+n < len(line) && line[i+n] == c {
		n++
	}
	if n < 3 {
		return fence{}, false
	}
	info := strings.TrimSpace(string(line[i+n:]))
	if c == '`' && strings.IndexByte(info, '`') >= 0 {
		return fence{}, false // CommonMark: a backtick fence's info has no backticks
	}
	return fence{char: c, n: n, info: info}, true
}

// closes reports whether line closes a fence opened by f: the same
// character, at least as many, nothing but spaces after.
func (f fence) closes(line []byte) bool {
	g, ok := parseFence(line)
	return ok && g.char == f.char && g.n >= f.n && g.info == ""
}

const marker = "mcp-request"

// isRequestInfo reports whether a fence's info string marks a request: its
// first word is mcp-request (in any letter case). Anything after the word
// is kept by CommonMark as attributes and ignored here.
func isRequestInfo(info string) bool {
	word, _, _ := strings.Cut(info, " ")
	return strings.EqualFold(word, marker)
}

// wrappers are the lines that chat pages put around a code block and that
// come along when the text is copied: the block's label and its buttons.
var wrappers = map[string]bool{
	"copy": true, "copy code": true, "copied": true, "copied!": true, "copy to clipboard": true,
	"download": true, "edit": true, "code": true, "json": true, "jsonc": true, "text": true,
	"复制": true, "复制代码": true, "已复制": true, "下载": true, "代码": true, "编辑": true,
	marker: true,
}

// maxWrapper bounds the length of a wrapper line, so that the common case,
// a longer line, is rejected without lower-casing it (which showed in
// profiles of 10 MB responses).
const maxWrapper = 32

func isWrapper(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) > maxWrapper || len(t) == 0 {
		return false
	}
	return wrappers[strings.ToLower(string(t))]
}

// bareMarker reports whether a line is the bare label of a request whose
// fence was lost in copying: "mcp-request", perhaps run together with a
// button's text ("mcp-request复制").
func bareMarker(line []byte) bool {
	s := strings.TrimSpace(string(line))
	if len(s) < len(marker) || !strings.EqualFold(s[:len(marker)], marker) {
		return false
	}
	rest := strings.TrimSpace(s[len(marker):])
	return rest == "" || wrappers[strings.ToLower(rest)]
}

func isBlank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }

// findBlocks finds every request in the text, in document order:
//   - a fenced block whose info string is mcp-request (strict);
//   - the same with no closing fence: the block ends with its JSON value;
//   - a bare "mcp-request" line followed by the JSON (the fence was lost);
//   - in all of these, blank lines and chat-page wrapper lines ("Copy
//     code", "复制", "json", …) before the JSON and after it.
//
// Every tolerated deviation is recorded as a repair. Other fenced blocks
// (mcp-response, json, a quoted prompt) are skipped whole, so requests
// quoted inside them are not read; an other fence that is never closed is
// taken as a stray line, so that it cannot hide the rest of the response.
func findBlocks(d *doc) []block {
	var out []block
	for off := 0; off < len(d.text); {
		line, next := d.line(off)
		if f, ok := parseFence(line); ok {
			if isRequestInfo(f.info) {
				b := d.readFenced(off, next, f)
				out = append(out, b)
				off = b.end
				continue
			}
			if end, ok := d.findClose(next, f); ok {
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

// findClose returns the offset after the first line from off on that
// closes f.
func (d *doc) findClose(off int, f fence) (int, bool) {
	for off < len(d.text) {
		line, next := d.line(off)
		if f.closes(line) {
			return next, true
		}
		off = next
	}
	return 0, false
}

// skipWrappers skips blank and wrapper lines from off, recording a repair
// for each wrapper line, and returns the offset of the first other line.
func (d *doc) skipWrappers(off, limit int, b *block) int {
	for off < limit {
		line, next := d.line(off)
		switch {
		case isBlank(line):
		case isWrapper(line):
			b.repairs = append(b.repairs, step.Repair{Pos: d.pos(off),
				What: fmt.Sprintf("skipped the line %q that a chat page puts around code blocks", strings.TrimSpace(string(line)))})
		default:
			return off
		}
		off = next
	}
	return limit
}

func (d *doc) fail(b *block, off int, msg, hint string) {
	b.err = &step.ParseError{Dialect: Dialect, Pos: d.pos(off), Msg: msg, Quote: d.quote(off), Hint: hint}
}

// firstNonSpace returns the first offset from off that is not white space.
func (d *doc) firstNonSpace(off int) int {
	for off < len(d.text) && strings.IndexByte(" \t\r\n", d.text[off]) >= 0 {
		off++
	}
	return off
}

func (d *doc) readFenced(open, body int, f fence) block {
	b := block{start: open, open: open}
	closeAt, closeEnd, closed := -1, len(d.text), false
	for off := body; off < len(d.text); {
		line, next := d.line(off)
		if f.closes(line) {
			closeAt, closeEnd, closed = off, next, true
			break
		}
		off = next
	}
	limit := len(d.text)
	if closed {
		limit = closeAt
	}
	p := d.skipWrappers(body, limit, &b)
	p = min(d.firstNonSpace(p), limit)
	if p >= limit {
		b.end = closeEnd
		d.fail(&b, open, "the mcp-request block is empty",
			`write one JSON-RPC request in it: {"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{…}}`)
		return b
	}
	end, ok := d.readValue(&b, p, limit)
	if !ok {
		b.end = closeEnd
		if !closed && b.err.Pos.Offset < len(d.text) {
			_, b.end = d.line(d.starts[b.err.Pos.Line-1])
		}
		return b
	}
	// What follows the value decides whether the fence is closed. The
	// wrapper lines skipped here are repairs only if the block takes them.
	var trail block
	after := d.skipWrappers(end, limit, &trail)
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
		if _, ok := parseFence(line); ok || bareMarker(line) {
			return true
		}
		off = next
	}
	return false
}

func (d *doc) readBare(open, body int) (block, bool) {
	b := block{start: open, open: open}
	b.repairs = append(b.repairs, step.Repair{Pos: d.pos(open), What: "a bare mcp-request line without a code fence"})
	p := d.firstNonSpace(d.skipWrappers(body, len(d.text), &b))
	if p >= len(d.text) || d.text[p] != '{' {
		// A lone label followed by prose is not a request: nothing to read.
		return block{}, false
	}
	end, ok := d.readValue(&b, p, len(d.text))
	if !ok {
		_, b.end = d.line(d.starts[b.err.Pos.Line-1])
		return b, true
	}
	b.end = end
	// A closing fence whose opening line was lost belongs to this block;
	// left behind, it would open a fence that hides what follows.
	var trail block
	after := d.skipWrappers(end, len(d.text), &trail)
	if after < len(d.text) {
		if line, next := d.line(after); bytes.Equal(bytes.TrimSpace(line), []byte("```")) || bytes.Equal(bytes.TrimSpace(line), []byte("~~~")) {
			b.end = next
			b.repairs = append(b.repairs, trail.repairs...)
		}
	}
	return b, true
}

// readValue reads one JSON value at p (before limit) with encoding/json,
// which finds where the value ends. It returns the offset after the rest of
// the value's line, which must be blank.
func (d *doc) readValue(b *block, p, limit int) (int, bool) {
	if c := d.text[p]; c != '{' {
		msg := "the block does not hold a JSON object"
		if c == '[' {
			msg = "a JSON array (a batch) in an mcp-request block"
		}
		d.fail(b, p, msg, `write one JSON-RPC request object per block: {"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"fs.read","arguments":{"path":"…"}}}`)
		return 0, false
	}
	// The value's end by structure, then one validation pass; encoding/json's
	// Decoder (slower: it buffers and copies) only words an error.
	if n := valueEnd(d.text[p:limit]); n > 0 && json.Valid(d.text[p:p+n]) {
		b.value, b.valueOff = d.text[p:p+n], p
		return d.afterValue(b, p+n)
	}
	dec := json.NewDecoder(bytes.NewReader(d.text[p:limit]))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			at := p + max(int(se.Offset)-1, 0)
			d.fail(b, at, "malformed JSON: "+se.Error(), jsonHint)
		default: // io.ErrUnexpectedEOF: the value never ends
			at := p + len(bytes.TrimRight(d.text[p:limit], " \t\r\n"))
			d.fail(b, at, "malformed JSON: the request ends before its closing brace", jsonHint+"; close every { and [ and every string")
		}
		return 0, false
	}
	b.value, b.valueOff = raw, p
	return d.afterValue(b, p+int(dec.InputOffset()))
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

// valueEnd returns the length of the JSON object or array at the start of
// b, found by its brackets and strings alone, or 0 when it does not close.
func valueEnd(b []byte) int {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}

const jsonHint = "the block must be valid JSON (JSON.parse must accept it): no comments, no trailing commas, strings in double quotes"
