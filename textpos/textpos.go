// Package textpos turns byte offsets in a text into the positions every
// message of autocoder reports: a 1-based line and a 1-based column counted
// in characters (runes), which is what an editor shows, also in Chinese
// prose. It is the one such converter; the dialect readers, the shell-word
// splitter, the matcher's errors and the config's errors use it.
//
// Of converts one offset. A reader that walks a text in order keeps the
// last position and moves from it with Advance (forward) or Locate (either
// way), so that its cost stays linear in the text; a reader that asks in no
// particular order builds an Index once.
package textpos

import (
	"bytes"
	"sort"
	"unicode/utf8"

	"github.com/autocoder/autocoder/step"
)

// Start is the position of the first byte of a text.
var Start = step.Pos{Offset: 0, Line: 1, Col: 1}

// Of returns the position of byte offset off in data (clamped to the text).
// Its cost is linear in off.
func Of(data []byte, off int) step.Pos {
	return Advance(data, Start, min(max(off, 0), len(data)))
}

// Advance returns the position of byte offset off, counting lines and
// columns forward from the known position from (from.Offset <= off).
// Its cost is linear in off-from.Offset, so callers walking a text in order
// keep the last position and advance from it.
func Advance(data []byte, from step.Pos, off int) step.Pos {
	if off <= from.Offset {
		return from
	}
	seg := data[from.Offset:off]
	n := bytes.Count(seg, []byte{'\n'})
	if n == 0 {
		return step.Pos{Offset: off, Line: from.Line, Col: from.Col + utf8.RuneCount(seg)}
	}
	last := bytes.LastIndexByte(seg, '\n')
	return step.Pos{Offset: off, Line: from.Line + n, Col: 1 + utf8.RuneCount(seg[last+1:])}
}

// Locate returns the position of byte offset off, computed from near, a
// known position before or after it; base is a known position at or before
// off that bounds the walk back. Its cost is linear in the distance from
// near (or, walking back across a line break, in the length of off's line),
// so callers keep the last position and locate the next one from it. Like
// Advance, it counts columns right only for offsets at a character's start.
func Locate(data []byte, base, near step.Pos, off int) step.Pos {
	if off >= near.Offset {
		return Advance(data, near, off)
	}
	if off <= base.Offset {
		return base
	}
	seg := data[off:near.Offset]
	n := bytes.Count(seg, []byte{'\n'})
	if n == 0 {
		return step.Pos{Offset: off, Line: near.Line, Col: near.Col - utf8.RuneCount(seg)}
	}
	back := data[base.Offset:off]
	if i := bytes.LastIndexByte(back, '\n'); i >= 0 {
		return step.Pos{Offset: off, Line: near.Line - n, Col: 1 + utf8.RuneCount(back[i+1:])}
	}
	return step.Pos{Offset: off, Line: near.Line - n, Col: base.Col + utf8.RuneCount(back)}
}

// Index holds a text's line starts, so that positions asked for in any
// order cost a binary search and the length of one line.
type Index struct {
	text   []byte
	starts []int // offset of each line's first byte
}

// NewIndex reads the line starts of text, once.
func NewIndex(text []byte) *Index {
	// Counted first and found with IndexByte: both run many bytes at a
	// time, and the slice is allocated once (a 10 MB text has 150,000
	// lines, and four readers index it).
	starts := make([]int, 1, bytes.Count(text, []byte{'\n'})+1)
	for i := 0; ; {
		j := bytes.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	return &Index{text: text, starts: starts}
}

// Starts returns the offset of each line's first byte, in order (the first
// is 0), for a reader that looks at line starts only. The slice is the
// index's own: read it, never change it.
func (x *Index) Starts() []int { return x.starts }

// Pos returns the position of byte offset off (clamped to the text).
func (x *Index) Pos(off int) step.Pos {
	off = min(max(off, 0), len(x.text))
	i := x.line(off)
	return step.Pos{Offset: off, Line: i + 1, Col: 1 + utf8.RuneCount(x.text[x.starts[i]:off])}
}

// LineStart returns the offset of the first byte of the line that holds
// byte offset off.
func (x *Index) LineStart(off int) int {
	return x.starts[x.line(min(max(off, 0), len(x.text)))]
}

// line is the 0-based line of off.
func (x *Index) line(off int) int {
	return sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > off }) - 1
}

// Clip is s cut to at most n bytes at a character boundary, with "…"
// marking the cut: how a message quotes a value or a line of a response
// without repeating all of it, and never with half a character.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
