package searchreplace

import (
	"bytes"
	"fmt"
	"regexp"
	"sync"

	"github.com/autocoder/autocoder/step"
)

// tag is a tool call's opening and closing tag.
type tag struct{ open, close, flavour string }

// The tool calls, by their opening tag.
var tags = []tag{
	{"<replace_in_file>", "</replace_in_file>", Cline},
	{"<apply_diff>", "</apply_diff>", RooDiff},
	{"<write_to_file>", "</write_to_file>", Write},
}

// calls reads the Cline and Roo tool calls: an opening tag at the start of
// a line (after blanks) up to its closing tag. A call never closed is an
// error that takes the rest of the text: what follows it is the call's.
func (p *parser) calls() []step.Item {
	var items []step.Item
	for i := 0; i < len(p.lines); i++ {
		l := bytes.TrimLeft(p.at(i), " \t")
		if len(l) == 0 || l[0] != '<' {
			continue
		}
		for _, t := range tags {
			if !bytes.HasPrefix(l, []byte(t.open)) {
				continue
			}
			start := p.lines[i].start
			open := p.lines[i].end - len(l) + len(t.open)
			k := bytes.Index(p.text[open:], []byte(t.close))
			if k < 0 {
				items = append(items, p.errItem(start, len(p.text), start, t.flavour,
					fmt.Sprintf("the %s tool call is not closed: no %s before the text ends", t.open, t.close),
					fmt.Sprintf("end the call with %s", t.close)))
				return items
			}
			end := open + k + len(t.close)
			body := p.text[open : open+k]
			it := p.call(t.flavour, start, open, end, body)
			// The call takes the rest of its closing line.
			j := p.lineOf(end - 1)
			it.End = p.lines[j].next
			items = append(items, it)
			i = j
			break
		}
	}
	return items
}

// element returns the text of the first <name>…</name> in body, with the
// offset where it starts; ok is false when either tag is missing. With last,
// the closing tag is the last one in body: a <diff> or <content> may quote
// its own closing tag, and nothing but siblings may follow it.
func element(body []byte, name string, last bool) (text []byte, at int, ok bool) {
	o, c := []byte("<"+name+">"), []byte("</"+name+">")
	i := bytes.Index(body, o)
	if i < 0 {
		return nil, 0, false
	}
	at = i + len(o)
	k := bytes.Index(body[at:], c)
	if last {
		k = bytes.LastIndex(body[at:], c)
	}
	if k < 0 {
		return nil, at, false
	}
	return body[at : at+k], at, true
}

// call reads one tool call whose opening tag starts at start; body is the
// text between its tags, from offset open.
func (p *parser) call(flavour string, start, open, end int, body []byte) step.Item {
	bad := func(at int, msg, fix string) step.Item {
		return p.errItem(start, end, at, flavour, msg, fix)
	}
	rawPath, pathAt, ok := element(body, "path", false)
	path := string(bytes.TrimSpace(rawPath))
	if !ok || path == "" {
		return bad(open+pathAt, fmt.Sprintf("the %s call has no <path>", flavour), "name the file: <path>src/app.py</path>")
	}
	field := "diff"
	if flavour == Write {
		field = "content"
	}
	inner, at, ok := element(body, field, true)
	if !ok {
		return bad(start, fmt.Sprintf("the %s call has no <%s>…</%s>", flavour, field, field),
			fmt.Sprintf("put the %s between <%s> and </%s>", field, field, field))
	}
	at += open
	st := &step.Step{Dialect: Dialect, Pos: p.pos(start), Source: Source{Flavour: flavour, Path: path}}
	if flavour == Write {
		c, reps := p.fileContent(inner, at)
		st.Ops = []step.Op{{Kind: step.OpWrite, Path: path, Content: c, HasContent: true, Pos: p.pos(at)}}
		st.Repairs = reps
		return step.Item{Step: st, Start: start, End: end}
	}
	op, blocks, perr := p.diff(flavour, path, at, at+len(inner))
	if perr != nil {
		it := bad(perr.at, perr.msg, perr.fix)
		return it
	}
	st.Ops = []step.Op{op}
	st.Repairs = blocks.repairs
	src := st.Source.(Source)
	src.Blocks = blocks.raw
	st.Source = src
	return step.Item{Step: st, Start: start, End: end}
}

// fileContent reads a <write_to_file>'s content as Cline does: without the
// line break after <content>, without a Markdown fence line that weaker
// models wrap it in, ending with one line break.
func (p *parser) fileContent(c []byte, at int) ([]byte, []step.Repair) {
	var reps []step.Repair
	c = bytes.TrimPrefix(bytes.TrimPrefix(c, []byte("\r")), []byte("\n"))
	c = bytes.TrimRight(c, " \t\r\n")
	ls := splitLines(c)
	from, to := 0, len(ls)
	if to > 0 && bytes.HasPrefix(c[ls[0].start:ls[0].end], []byte("```")) {
		if to > 1 && string(bytes.TrimSpace(c[ls[to-1].start:ls[to-1].end])) == "```" {
			from, to = 1, to-1
			reps = append(reps, step.Repair{Pos: p.pos(at), What: "the content is wrapped in a Markdown fence: the fence lines are not part of the file"})
		}
	}
	var out []byte
	for _, l := range ls[from:to] {
		out = append(out, c[l.start:l.end]...)
		out = append(out, '\n')
	}
	return out, reps
}

type diffErr struct {
	at       int
	msg, fix string
}

type diffBlocks struct {
	raw     []string
	repairs []step.Repair
}

// clineMarker reads a line (whole, as Cline compares it) as a marker of
// Cline's or Roo's: 3 or more of c, then " "+word, an optional ">"
// (for SEARCH and REPLACE). The divider may have trailing blanks [rule].
func clineMarker(l []byte, c byte, word string) bool {
	n := run(l, c)
	if n < 3 {
		return false
	}
	rest := string(l[n:])
	if word == "" {
		return isBlank([]byte(rest))
	}
	return rest == " "+word || rest == " "+word+">"
}

func xmlSearch(l []byte) bool {
	return clineMarker(l, '-', "SEARCH") || clineMarker(l, '<', "SEARCH")
}
func xmlDivider(l []byte) bool { return clineMarker(l, '=', "") }
func xmlReplace(l []byte) bool {
	return clineMarker(l, '+', "REPLACE") || clineMarker(l, '>', "REPLACE")
}

var (
	lineHint   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^:(start|end)_line:\s*(\d+)\s*$`) })
	numPrefix  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\d+ \| ?`) })
	rooEscaped = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\\(<<<<<<<|=======|>>>>>>>|-------|:start_line:|:end_line:)`)
	})
)

const diffExample = "write each block as ------- SEARCH, the exact lines to find, =======, the new lines, +++++++ REPLACE"

// diff reads the SEARCH/REPLACE blocks of a <diff> in [from, to) into one
// replace op (or, for a single block with an empty SEARCH on a new or
// empty file, a write).
func (p *parser) diff(flavour, path string, from, to int) (step.Op, diffBlocks, *diffErr) {
	roo := flavour == RooDiff
	var out diffBlocks
	var edits []step.Edit
	first, last := p.lineOf(from), p.lineOf(max(to-1, from))
	if p.lines[first].start < from {
		// <diff> shares its line with the first block's text: that text
		// is after the tag.
		if !isBlank(p.text[from:p.lines[first].end]) {
			return step.Op{}, out, &diffErr{from, "the first marker must start its own line after <diff>", diffExample}
		}
		first++
	}
	if last < len(p.lines) && p.lines[last].end > to {
		// </diff> shares the last line; what precedes it on that line
		// counts as a line only when it is not blank.
		if isBlank(p.text[p.lines[last].start:to]) {
			last--
		}
	}
	const (
		outside = iota
		search
		replace
	)
	state, s, d := outside, -1, -1
	ts := -1 // the first line of the SEARCH text
	emit := func(r int) {
		old, nw := p.lines2(ts, d, roo), p.lines2(d+1, r, roo)
		at := p.pos(p.lines[s].start)
		edits = append(edits, step.Edit{Old: string(old), New: string(nw), Pos: at})
		end := p.lines[min(r, last)].next
		if r > last {
			end = to
		}
		out.raw = append(out.raw, string(p.text[p.lines[s].start:min(end, to)]))
	}
	line := func(j int) []byte {
		l := p.at(j)
		if j == last && p.lines[j].end > to {
			l = p.text[p.lines[j].start:to]
		}
		return l
	}
	for j := first; j <= last && j < len(p.lines); j++ {
		l := line(j)
		at := p.lines[j].start
		switch state {
		case outside:
			switch {
			case xmlSearch(l):
				state, s, ts = search, j, j+1
			case isBlank(l):
			case bytes.HasPrefix(bytes.TrimSpace(l), []byte("```")):
				out.repairs = append(out.repairs, step.Repair{Pos: p.pos(at), What: "a Markdown fence line inside <diff> is ignored"})
			default:
				return step.Op{}, out, &diffErr{at, fmt.Sprintf("expected a SEARCH marker in <diff>, found %q", bytes.TrimSpace(l)), diffExample}
			}
		case search:
			switch {
			case roo && j == ts && (lineHint().Match(l) || string(bytes.TrimSpace(l)) == "-------"):
				// Roo's line hints and separator: read and ignored for
				// placement; the SEARCH text starts after them.
				ts = j + 1
			case xmlDivider(l):
				state, d = replace, j
			case xmlSearch(l), xmlReplace(l), looksLikeMarker(l):
				return step.Op{}, out, &diffErr{at, fmt.Sprintf("expected ======= after the SEARCH lines of line %d, found %q", s+1, bytes.TrimSpace(l)), diffExample}
			}
		case replace:
			switch {
			case xmlReplace(l):
				emit(j)
				state = outside
			case xmlDivider(l):
				return step.Op{}, out, &diffErr{at, fmt.Sprintf("a second ======= in the block of line %d: which one divides SEARCH from REPLACE cannot be told", s+1),
					"a block has one ======= line; a content line that is ======= is written \\======= (Roo), or quote a smaller part around it"}
			case roo && lineHint().Match(l):
				return step.Op{}, out, &diffErr{at, fmt.Sprintf("%s inside the REPLACE text of the block of line %d", bytes.TrimSpace(l), s+1),
					":start_line: and :end_line: go right after <<<<<<< SEARCH"}
			case xmlSearch(l), looksLikeMarker(l):
				return step.Op{}, out, &diffErr{at, fmt.Sprintf("expected a REPLACE marker to end the block of line %d, found %q", s+1, bytes.TrimSpace(l)), diffExample}
			}
		}
	}
	switch state {
	case search:
		return step.Op{}, out, &diffErr{p.lines[s].start, fmt.Sprintf("the SEARCH block of line %d has no =======", s+1), diffExample}
	case replace:
		// Cline's isFinal: a complete tool call closes its last block.
		emit(last + 1)
		out.repairs = append(out.repairs, step.Repair{Pos: p.pos(p.lines[s].start),
			What: "the last block has no REPLACE marker; </diff> ends it"})
	}
	if len(edits) == 0 {
		return step.Op{}, out, &diffErr{from, "the <diff> holds no SEARCH/REPLACE block", diffExample}
	}
	if roo {
		out.repairs = append(out.repairs, p.stripNumbers(edits)...)
	}
	at := edits[0].Pos
	for _, e := range edits {
		if e.Old == "" {
			if len(edits) > 1 {
				return step.Op{}, out, &diffErr{e.Pos.Offset, "an empty SEARCH among other blocks: an empty SEARCH only fills a new or empty file",
					"quote the lines to change in every SEARCH"}
			}
			return step.Op{Kind: step.OpWrite, Path: path, Content: []byte(e.New), HasContent: true, NoReplace: true, Pos: at}, out, nil
		}
	}
	return step.Op{Kind: step.OpReplace, Path: path, Edits: edits, Pos: at}, out, nil
}

// lines2 is content for a Cline or Roo block: for Roo a content line that
// starts with a backslash before a marker stands for the marker line.
func (p *parser) lines2(from, to int, roo bool) []byte {
	if !roo {
		return p.content(from, to)
	}
	var b []byte
	for i := from; i < to; i++ {
		l := p.at(i)
		if rooEscaped().Match(l) {
			l = l[1:]
		}
		b = append(b, l...)
		b = append(b, '\n')
	}
	return b
}

// stripNumbers drops the "N | " prefixes of Roo's read_file output from the
// SEARCH lines of an edit when every one carries one, and from its REPLACE
// lines when every one of those does.
func (p *parser) stripNumbers(edits []step.Edit) []step.Repair {
	var reps []step.Repair
	strip := func(s string) (string, bool) {
		ls := bytes.SplitAfter([]byte(s), []byte("\n"))
		if len(ls) > 0 && len(ls[len(ls)-1]) == 0 {
			ls = ls[:len(ls)-1]
		}
		if len(ls) == 0 {
			return s, false
		}
		for _, l := range ls {
			if !numPrefix().Match(l) {
				return s, false
			}
		}
		var b []byte
		for _, l := range ls {
			l = l[len(numPrefix().Find(l)):]
			if rooEscaped().Match(l) {
				l = l[1:] // an escaped marker line behind its number
			}
			b = append(b, l...)
		}
		return string(b), true
	}
	for i := range edits {
		var ok bool
		if edits[i].Old, ok = strip(edits[i].Old); ok {
			edits[i].New, _ = strip(edits[i].New)
			reps = append(reps, step.Repair{Pos: edits[i].Pos,
				What: "the SEARCH lines carry read_file's line numbers (N | ): dropped; the place is found by the text"})
		}
	}
	return reps
}
