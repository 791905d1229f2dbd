package fence

import (
	"sort"
	"strings"

	"github.com/autocoder/autocoder/textpos"
)

// Text is a response scanned once for every reader of it: protocol runs
// eight readers over one response, and each needs its fenced blocks or its
// line index (a 10 MB answer took a scan and an index per reader). Readers
// take a *Text and must not change it: its Blocks, their Content and its
// Lines are shared.
type Text struct {
	Bytes  []byte
	Blocks []Block        // Scan(Bytes)
	Lines  *textpos.Index // the line starts of Bytes, for positions
}

// NewText scans text once: its fenced blocks and its line starts.
func NewText(text []byte) *Text {
	return &Text{Bytes: text, Blocks: Scan(text), Lines: textpos.NewIndex(text)}
}

// Line is one line of a text without its line ending ("\n" or "\r\n"), and
// the offset where it starts. The readers that walk a text line by line
// (applypatch, udiff) hold its lines so.
type Line struct {
	S   string
	Off int
}

// Lines cuts data into lines, each offset by base (where data starts in
// the response). The lines are pieces of one string copy of data: no line
// is allocated on its own.
func Lines(data []byte, base int) []Line {
	text := string(data)
	ls := make([]Line, 0, strings.Count(text, "\n")+1)
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		next := len(text)
		if end < 0 {
			end = len(text)
		} else {
			end += off
			next = end + 1
		}
		ls = append(ls, Line{S: strings.TrimSuffix(text[off:end], "\r"), Off: base + off})
		off = next
	}
	return ls
}

// At returns the block of blocks (in order, as Scan returns them) that
// holds offset off, its fence lines included, or nil: a reader that walks
// a text line by line asks it of each line, to tell a marker inside a
// fence from one outside (Enclosing) or to skip a fence whole (udiff).
func At(blocks []Block, off int) *Block {
	i := sort.Search(len(blocks), func(i int) bool { return blocks[i].Start > off }) - 1
	if i >= 0 && off < blocks[i].End {
		return &blocks[i]
	}
	return nil
}

// Enclosing returns the block whose content holds offset off, or nil.
func Enclosing(blocks []Block, off int) *Block {
	if b := At(blocks, off); b != nil && off >= b.ContentStart && off < b.ContentEnd {
		return b
	}
	return nil
}
