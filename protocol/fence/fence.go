// Package fence finds CommonMark fenced code blocks in a model's response.
//
// It is the lowest layer of the dialect readers: Axon plans and FlyCode MCP
// requests are both fenced blocks. Start with Scan; Block documents which
// offsets and lines a block reports, and ScanChar is the variant Axon uses to
// read a plan with one fence character only.
//
// The scanner follows CommonMark's rules for fences and nothing else of
// Markdown: an opening line is up to three spaces of indent, then three or
// more of one fence character (` or ~), then an info string (for backticks
// the info string may not hold a backtick); the block closes at the first
// line indented by up to three spaces that holds the same character at least
// as many times and only white space after it. A fence inside a block quote
// or a list item is not recognised: models write instruction blocks at the
// left margin, and reading container blocks would make every quoted example
// in prose an instruction.
//
// A response may use CRLF line endings. A line's "\r\n" ending counts as its
// line ending, so content lines always end in "\n".
package fence

import (
	"bytes"
	"unicode/utf8"

	"github.com/autocoder/autocoder/textpos"
)

// Block is one fenced code block. Offsets are bytes into the scanned text;
// lines are 1-based.
type Block struct {
	Char   byte   // '`' or '~'
	Len    int    // length of the opening fence run (3 or more)
	Indent int    // spaces before the opening fence (0 to 3)
	Info   string // the info string, white space trimmed from both ends

	// Content is the text of the content lines, each ended by "\n" (a CRLF
	// ending becomes "\n"), with up to Indent leading spaces removed from
	// each line, as CommonMark prescribes. A block with no content lines has
	// empty Content; a block with one empty line has Content "\n". Content
	// never shares memory with the scanned text.
	Content []byte
	// Lines is the number of content lines.
	Lines int

	Start        int // offset of the opening line's first byte
	End          int // offset just past the closing line and its line ending; len(text) if unclosed
	ContentStart int // offset of the first content line
	ContentEnd   int // offset where the closing line starts; len(text) if unclosed

	Line    int  // line of the opening fence
	EndLine int  // line of the closing fence; the last line of the text if unclosed
	Closed  bool // false when the text ended before a closing fence
}

// Scan returns the top-level fenced blocks of text in order, using both
// fence characters. A fence of one character inside a block of the other is
// content. A block still open at the end of the text is returned with
// Closed false. Scan runs in time linear in len(text).
func Scan(text []byte) []Block {
	return ScanChar(text, 0, 0)
}

// ScanChar is Scan restricted to one fence character (0 means both), starting
// at offset from, which must be 0 or just past a '\n'. Lines of the other
// character are ordinary text: Axon reads a plan with the character of its
// first act block only, so that ``` inside ~~~~~ content (or the reverse)
// never opens a block.
func ScanChar(text []byte, char byte, from int) []Block {
	var blocks []Block
	line := textpos.Of(text, from).Line
	var open *Block // the block being read, nil between blocks
	for pos := from; pos < len(text); {
		end, next := lineEnd(text, pos)
		l := text[pos:end]
		if open == nil {
			if b, ok := opening(l, char); ok {
				b.Start, b.ContentStart, b.Line = pos, next, line
				blocks = append(blocks, b)
				open = &blocks[len(blocks)-1]
			}
		} else if isClosing(l, open.Char, open.Len) {
			open.ContentEnd, open.End, open.EndLine, open.Closed = pos, next, line, true
			open.Content = content(text[open.ContentStart:pos], open.Indent, open.Lines)
			open = nil
		} else {
			open.Lines++
		}
		pos = next
		line++
	}
	if open != nil {
		open.ContentEnd, open.End = len(text), len(text)
		open.EndLine = line - 1
		if open.EndLine < open.Line {
			open.EndLine = open.Line
		}
		open.Content = content(text[open.ContentStart:], open.Indent, open.Lines)
	}
	return blocks
}

// lineEnd returns the end of the line starting at pos (before "\n" or
// "\r\n") and the start of the next line. A "\r" that ends the text counts
// as a line ending too: it is a CRLF response cut after its CR.
func lineEnd(text []byte, pos int) (end, next int) {
	end, next = len(text), len(text)
	if i := bytes.IndexByte(text[pos:], '\n'); i >= 0 {
		end, next = pos+i, pos+i+1
	}
	if end > pos && text[end-1] == '\r' {
		end--
	}
	return end, next
}

// opening reads l as an opening fence line of char (0: either character).
func opening(l []byte, char byte) (Block, bool) {
	indent := 0
	for indent < len(l) && indent < 4 && l[indent] == ' ' {
		indent++
	}
	if indent > 3 || indent >= len(l) {
		return Block{}, false
	}
	c := l[indent]
	if (c != '`' && c != '~') || (char != 0 && c != char) {
		return Block{}, false
	}
	n := 0
	for indent+n < len(l) && l[indent+n] == c {
		n++
	}
	if n < 3 {
		return Block{}, false
	}
	info := l[indent+n:]
	// CommonMark: a backtick fence's info string may not hold a backtick,
	// or inline code such as ```foo``` would open a block.
	if c == '`' && bytes.IndexByte(info, '`') >= 0 {
		return Block{}, false
	}
	return Block{Char: c, Len: n, Indent: indent, Info: string(bytes.TrimSpace(info))}, true
}

// isClosing reports whether l closes a block opened by n of c.
func isClosing(l []byte, c byte, n int) bool {
	i := 0
	for i < len(l) && i < 4 && l[i] == ' ' {
		i++
	}
	if i > 3 {
		return false
	}
	run := 0
	for i < len(l) && l[i] == c {
		i++
		run++
	}
	if run < n {
		return false
	}
	for ; i < len(l); i++ {
		if l[i] != ' ' && l[i] != '\t' {
			return false
		}
	}
	return true
}

// content builds a block's Content from the raw text of its content lines:
// CRLF endings become "\n", a missing final line ending is added, and up to
// indent leading spaces go from every line.
func content(raw []byte, indent, lines int) []byte {
	if lines == 0 {
		return []byte{}
	}
	out := make([]byte, 0, len(raw)+1)
	if indent == 0 && bytes.IndexByte(raw, '\r') < 0 {
		// Nothing to change but the final line ending: one copy, not one
		// append per line (a 10 MB answer is mostly fence content).
		out = append(out, raw...)
		if len(raw) > 0 && raw[len(raw)-1] != '\n' {
			out = append(out, '\n')
		}
		return out
	}
	for pos := 0; pos < len(raw); {
		end, next := lineEnd(raw, pos)
		l := raw[pos:end]
		for k := 0; k < indent && len(l) > 0 && l[0] == ' '; k++ {
			l = l[1:]
		}
		out = append(out, l...)
		out = append(out, '\n')
		pos = next
	}
	return out
}

// Open reads one line (without its line ending) as an opening fence line of
// either character, for a reader that walks a text line by line and decides
// itself where a block ends (FlyCode MCP, whose copied blocks often lose
// their closing fence). Only Char, Len, Indent and Info are set.
func Open(line []byte) (Block, bool) {
	return opening(line, 0)
}

// Closes reports whether line (without its line ending) closes b: up to
// three spaces, b's character at least b.Len times, then only spaces or
// tabs.
func (b Block) Closes(line []byte) bool {
	return isClosing(line, b.Char, b.Len)
}

// Lead returns the first byte of line l that strings.TrimSpace keeps: a
// reader tells most lines from its marker lines by that byte, without
// trimming every line (TrimSpace decodes the last rune of each line that
// ends in a non-ASCII character). It returns 0 for a line of white space
// only (and for one whose first other byte is NUL, which no marker starts
// with), and utf8.RuneSelf when a non-ASCII byte comes first: that may
// start a Unicode space, so trim the line and look.
func Lead[T string | []byte](l T) byte {
	for i := 0; i < len(l); i++ {
		switch c := l[i]; c {
		case ' ', '\t', '\n', '\v', '\f', '\r':
		default:
			return min(c, utf8.RuneSelf)
		}
	}
	return 0
}

// PathLine reads a line as a bare file path, the way models name the file
// a block is for on the line above it (FORMATS.md 2.1, 5.1), or returns "".
// Decorations go: leading #s and blanks (### src/app.py), surrounding
// backticks and * (**app/models.py**, `src/file1.py`), a trailing colon.
// Prose is not a path: a name with blanks must hold a "/" (a folder with
// spaces), a name must hold a "." or a "/" unless it is a well-known file
// without an extension (Makefile), and a sentence's final full stop is not
// an extension. A path is never guessed from a sentence that mentions one.
func PathLine(l []byte) string {
	t := bytes.TrimSpace(l)
	for { // until nothing more comes off: a path reads as itself
		u := bytes.TrimSpace(bytes.TrimLeft(t, "#"))
		u = bytes.TrimSpace(bytes.Trim(bytes.TrimSuffix(u, []byte(":")), "*`"))
		if len(u) == len(t) {
			break
		}
		t = u
	}
	switch {
	case len(t) == 0, t[len(t)-1] == '.', bytes.IndexByte([]byte("-+@!"), t[0]) >= 0,
		bytes.ContainsAny(t, " \t") && !bytes.Contains(t, []byte("/")),
		bytes.ContainsAny(t, "`<>|\"'=,;()[]{}"):
		return ""
	case bytes.ContainsAny(t, "./"), bareNames[string(t)]:
		return string(t)
	}
	return ""
}

// bareNames are file names without an extension that projects commonly
// hold.
var bareNames = map[string]bool{
	"Makefile": true, "makefile": true, "GNUmakefile": true, "Dockerfile": true, "Containerfile": true,
	"Gemfile": true, "Rakefile": true, "Procfile": true, "Jenkinsfile": true, "Vagrantfile": true,
	"LICENSE": true, "README": true, "CHANGELOG": true, "AUTHORS": true, "NOTICE": true, "VERSION": true,
}
