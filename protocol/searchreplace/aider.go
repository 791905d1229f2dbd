package searchreplace

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/step"
)

// aiderMarker reads l, white space trimmed as aider compares it, as one of
// aider's markers: 5 to 9 marker characters, then " SEARCH" (an optional
// ">" after it, as Claude Sonnet 4 writes it), nothing, or " REPLACE".
func aiderMarker(l []byte, c byte, word string) bool {
	if lead := fence.Lead(l); lead != c && lead != utf8.RuneSelf {
		return false // most lines, told without trimming them
	}
	t := bytes.TrimSpace(l)
	n := run(t, c)
	if n < 5 || n > 9 {
		return false
	}
	rest := string(t[n:])
	switch word {
	case "":
		return rest == ""
	case "SEARCH":
		return rest == " SEARCH" || rest == " SEARCH>"
	}
	return rest == " "+word
}

func isSearch(l []byte) bool  { return aiderMarker(l, '<', "SEARCH") }
func isDivider(l []byte) bool { return aiderMarker(l, '=', "") }
func isReplace(l []byte) bool { return aiderMarker(l, '>', "REPLACE") }

// aider reads aider's blocks: every SEARCH marker line outside the tool
// calls (sorted, disjoint items) starts one.
func (p *parser) aider(calls []step.Item) []step.Item {
	var items []step.Item
	fences := p.fences
	floor := 0 // the first line a block may use: after the previous item
	c := 0     // the next call that may lie ahead
	prevPath := ""
	for i := 0; i < len(p.lines); i++ {
		off := p.lines[i].start
		for c < len(calls) && calls[c].End <= off {
			floor = p.lineOf(calls[c].End)
			c++
		}
		if c < len(calls) && calls[c].Start <= off {
			continue // inside a tool call
		}
		if isReplace(p.at(i)) {
			// A REPLACE marker outside every block: its SEARCH is missing
			// (or a divider came first, as Grok writes it).
			items = append(items, p.errItem(off, p.lines[i].next, off, Aider,
				"a >>>>>>> REPLACE marker with no <<<<<<< SEARCH block open",
				"start each block with <<<<<<< SEARCH, then the exact lines to find, =======, the new lines, >>>>>>> REPLACE"))
			floor = i + 1
			continue
		}
		if !isSearch(p.at(i)) {
			continue
		}
		limit := len(p.lines) // a block may not run into the next call
		if c < len(calls) {
			limit = p.lineOf(calls[c].Start)
		}
		it, last, path := p.aiderBlock(i, floor, limit, fence.Enclosing(fences, off), prevPath)
		items = append(items, it)
		if path != "" {
			prevPath = path
		}
		i = last
		floor = last + 1
	}
	return items
}

// aiderBlock reads the block whose SEARCH marker is line s, looking for its
// path no higher than line floor and for its end below line limit. It
// returns the item, the last line the item takes and the block's path.
func (p *parser) aiderBlock(s, floor, limit int, fb *fence.Block, prevPath string) (step.Item, int, string) {
	var repairs []step.Repair
	path, top := p.aiderPath(s, floor)
	start := p.lines[top].start
	bad := func(at int, msg, fix string) (step.Item, int, string) {
		// The broken block runs on to its REPLACE marker, when one comes
		// before the next SEARCH: that marker is the block's, not one
		// more error. (Each scan stops at the next SEARCH line, where the
		// next block starts: linear.)
		last := at
		for j := at + 1; j < limit; j++ {
			if isSearch(p.at(j)) {
				break
			}
			if isReplace(p.at(j)) {
				last = j
				break
			}
		}
		return p.errItem(start, p.lines[last].next, p.lines[at].start, Aider, msg, fix), last, ""
	}
	// closes reports the line that closes the block's fence: the block
	// must end before it.
	closes := func(j int) bool { return fb != nil && fb.Closed && p.lines[j].start == fb.ContentEnd }
	const example = "write each edit as: the file's path on its own line, then <<<<<<< SEARCH, the exact lines to find, =======, the new lines, >>>>>>> REPLACE"
	d := -1
	for j := s + 1; j < limit && d < 0; j++ {
		l := p.at(j)
		switch {
		case isDivider(l):
			d = j
		case closes(j):
			return bad(j, fmt.Sprintf("the fence that holds the SEARCH block of line %d closes inside it, before its =======", s+1),
				"when the lines hold ``` themselves, open the block with a longer fence (````); "+example)
		case looksLikeMarker(l):
			return bad(j, fmt.Sprintf("expected ======= after the SEARCH lines of line %d, found %q", s+1, bytes.TrimSpace(l)), example)
		}
	}
	if d < 0 {
		return bad(min(limit, len(p.lines))-1, fmt.Sprintf("the SEARCH block of line %d has no ======= and no >>>>>>> REPLACE", s+1), example)
	}
	r, last := -1, -1
	for j := d + 1; j < limit && r < 0; j++ {
		l := p.at(j)
		switch {
		case isReplace(l):
			r, last = j, j
		case isDivider(l) && j+1 < limit && closes(j+1):
			// aider ends the REPLACE text at a second divider; a model
			// closed real blocks so, right before the closing fence.
			r, last = j, j
			repairs = append(repairs, step.Repair{Pos: p.pos(p.lines[j].start),
				What: "the block ends with ======= instead of >>>>>>> REPLACE; read as its end, since the fence closes right after it"})
		case isDivider(l):
			return bad(j, fmt.Sprintf("a second ======= in the block of line %d: which one divides SEARCH from REPLACE cannot be told", s+1),
				"a SEARCH/REPLACE block has one ======= line; to edit a file that holds such a line, quote a smaller part around it")
		case closes(j):
			return bad(j, fmt.Sprintf("the fence that holds the SEARCH block of line %d closes inside it, before its >>>>>>> REPLACE", s+1),
				"when the lines hold ``` themselves, open the block with a longer fence (````); "+example)
		case looksLikeMarker(l):
			return bad(j, fmt.Sprintf("expected >>>>>>> REPLACE to end the block of line %d, found %q", s+1, bytes.TrimSpace(l)), example)
		}
	}
	if r < 0 {
		return bad(min(limit, len(p.lines))-1, fmt.Sprintf("expected >>>>>>> REPLACE: the block of line %d is not closed", s+1), example)
	}
	end := p.lines[last].next
	if fb != nil && fb.Closed {
		// The fence's closing line belongs to the block when only blank
		// lines stand between them.
		j := last + 1
		for j < limit && p.lines[j].start < fb.ContentEnd && isBlank(p.at(j)) {
			j++
		}
		if j < limit && p.lines[j].start == fb.ContentEnd {
			end, last = fb.End, j
		}
	}
	if path == "" {
		if prevPath == "" {
			return p.errItem(start, end, p.lines[s].start, Aider, "no file path above the SEARCH block",
				"put the file's path on the line right above the block (or above its opening fence)"), last, ""
		}
		path = prevPath
		repairs = append(repairs, step.Repair{Pos: p.pos(p.lines[s].start),
			What: fmt.Sprintf("no path above the block: the previous block's path %s is used", path)})
	}
	old, nw := p.content(s+1, d), p.content(d+1, r)
	at := p.pos(p.lines[s].start)
	op := step.Op{Kind: step.OpReplace, Path: path, Edits: []step.Edit{{Old: string(old), New: string(nw), Pos: at}}, Pos: at}
	if len(old) == 0 {
		op = step.Op{Kind: step.OpWrite, Path: path, Content: nw, HasContent: true, NoReplace: true, Pos: at}
	}
	st := &step.Step{Dialect: Dialect, Pos: p.pos(start), Ops: []step.Op{op}, Repairs: repairs,
		Source: Source{Flavour: Aider, Path: path, Blocks: []string{string(p.text[p.lines[s].start:p.lines[r].next])}}}
	return step.Item{Step: st, Start: start, End: end}, last, path
}

// aiderPath finds the path of the block whose SEARCH marker is line s in
// the up to three lines above it, no higher than line floor, walking back
// through fence lines as aider does: the line right above, or above the
// opening fence, or a fence opener's info string that is a path
// (```foo.txt), or the last line of a fence of its own before. It returns
// the path ("" when there is none) and the first line the block takes.
func (p *parser) aiderPath(s, floor int) (string, int) {
	top := s
	for k := s - 1; k >= max(floor, s-3); k-- {
		l := bytes.TrimSpace(p.at(k))
		if bytes.HasPrefix(l, []byte("```")) || bytes.HasPrefix(l, []byte("~~~")) {
			top = k
			info := bytes.TrimLeft(l, "`~")
			if name := fence.PathLine(info); name != "" && bytes.ContainsAny(info, "./") {
				return name, top
			}
			continue
		}
		if name := fence.PathLine(l); name != "" {
			return name, k
		}
		break
	}
	return "", top
}
