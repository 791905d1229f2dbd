package matcher

import (
	"bytes"
	"strings"
)

// Placing an edit that says where it goes besides its old text: the chunks
// of an apply_patch Update (FORMATS.md 1.2) and the hunks of a unified diff
// that end at the end of the file. The rules, in order:
//
//   - Follows: the search starts where the previous edit's new text ended
//     (the chunks of one Update come in file order).
//   - Anchors: each must equal a whole line of the file once white space at
//     both ends is trimmed (typographic dashes, quotes and spaces folded);
//     the search moves to just after the first such line at or after the
//     region's start. An anchor that equals only a line before the region
//     is a parent already entered when more anchors follow it; otherwise an
//     anchor found nowhere after the start refuses the edit.
//   - AtEnd: the old text must end at the end of the file. An empty old text
//     with AtEnd appends the new text.
//   - With an anchor the old text goes to its first occurrence in the region:
//     the anchor is the format's own way to pick one place. Without one it
//     must occur exactly once there, as for every edit.
//
// The tiers are those of every edit; a tier whose matches all lie outside
// the region does not stop the search.

// placed applies an edit with Anchors, Follows or AtEnd.
func placed(d *doc, e Edit, old, nw []byte, cursor *int) (Result, error) {
	if len(old) > 0 && e.Old == e.New {
		return Result{}, &NoChangeError{}
	}
	if err := checkText("old text", old); err != nil {
		return Result{}, err
	}
	if err := checkText("new text", nw); err != nil {
		return Result{}, err
	}
	from := 0
	if e.Follows {
		from = min(*cursor, d.size())
	}
	for i, a := range e.Anchors {
		at := anchorLine(d, a, firstLineAt(d, from))
		if at < 0 {
			if i < len(e.Anchors)-1 && anchorLine(d, a, 0) >= 0 {
				continue // a parent entered by an earlier chunk
			}
			return Result{}, &AnchorError{Anchor: a, FromLine: firstLineAt(d, from) + 1}
		}
		from = d.size()
		if at+1 < d.numLines() {
			from = d.lineStart(at + 1)
		}
	}
	if len(old) == 0 {
		if !e.AtEnd {
			return Result{}, &EmptyOldError{}
		}
		return appendEnd(d, nw, cursor)
	}
	keep := func(m match) bool { return m.start >= from && (!e.AtEnd || m.end == d.size()) }
	first := len(e.Anchors) > 0 || e.AtEnd
	if r, ok := alreadyPlaced(d, old, nw, keep, first); ok {
		*cursor = r.End
		return r, nil
	}
	ms, tier := firstTierWhere(d, old, keep)
	switch {
	case len(ms) == 0:
		if len(bytes.TrimSpace(nw)) > 0 {
			if ns, _ := firstTierWhere(d, nw, keep); len(ns) == 1 || (first && len(ns) > 0) {
				*cursor = ns[0].end
				return result(d, ns[0], true), nil
			}
		}
		return Result{}, &NoMatchError{Nearest: nearest(d, old)}
	case len(ms) > 1 && !first:
		amb := &AmbiguousMatchError{Tier: tier, Anchored: e.Follows}
		for _, m := range ms {
			amb.Lines = append(amb.Lines, d.lineOf(m.start)+1)
		}
		return Result{}, amb
	}
	m := ms[0]
	x, err := replacement(d, m, nw)
	if err != nil {
		return Result{}, err
	}
	r := result(d, m, false)
	d.splice(m.start, m.end, x)
	*cursor = m.start + len(x)
	return r, nil
}

// alreadyPlaced is alreadyInside for a placed edit whose new text holds
// its old text: sent again, the old text is found inside the new one, and
// must not be replaced a second time. With first (an anchor or the end of
// the file picks the place), the first old text in the region lying inside
// the first new text there is enough; otherwise every old text in the
// region must lie inside the one new text.
func alreadyPlaced(d *doc, old, nw []byte, keep func(match) bool, first bool) (Result, bool) {
	if !bytes.Contains(nw, old) || len(bytes.TrimSpace(nw)) == 0 {
		return Result{}, false
	}
	ns, _ := firstTierWhere(d, nw, keep)
	if len(ns) == 0 || (!first && len(ns) != 1) {
		return Result{}, false
	}
	os, _ := firstTierWhere(d, old, keep)
	if len(os) == 0 {
		return Result{}, false
	}
	if first {
		os = os[:1]
	}
	for _, m := range os {
		if m.start < ns[0].start || m.end > ns[0].end {
			return Result{}, false
		}
	}
	return result(d, ns[0], true), true
}

// appendEnd adds nw at the end of the file, which keeps its final newline
// or its lack of one. When the file already ends with nw's lines, the edit
// was applied before and nothing changes.
func appendEnd(d *doc, nw []byte, cursor *int) (Result, error) {
	size := d.size()
	x := bytes.ReplaceAll(nw, []byte("\r\n"), nl)
	lines := bytes.TrimRight(x, "\n")
	if len(bytes.TrimSpace(lines)) > 0 {
		from := max(0, size-2*len(lines)-4) // room for CRLF endings
		tail := bytes.TrimRight(d.slice(from, size), "\r\n")
		tail = bytes.ReplaceAll(tail, []byte("\r\n"), nl)
		whole := len(tail) == len(lines) && from == 0
		if bytes.HasSuffix(tail, lines) && (whole || len(tail) > len(lines) && tail[len(tail)-len(lines)-1] == '\n') {
			start := max(0, size-len(lines))
			*cursor = size
			return Result{Tier: Exact, Start: start, End: size, StartLine: d.lineOf(start) + 1, EndLine: d.numLines(), AlreadyApplied: true}, nil
		}
	}
	if size > 0 && d.slice(size-1, size)[0] != '\n' {
		x = append([]byte("\n"), bytes.TrimSuffix(x, nl)...)
	}
	if size > 0 && crlfAt(d, size-1) {
		x = bytes.ReplaceAll(x, nl, []byte("\r\n"))
	}
	line := d.numLines() + 1
	d.splice(size, size, x)
	*cursor = size + len(x)
	return Result{Tier: Exact, Start: size, End: size, StartLine: line, EndLine: line}, nil
}

// firstLineAt is the first line that starts at or after byte offset off.
func firstLineAt(d *doc, off int) int {
	if off >= d.size() {
		return d.numLines()
	}
	i := d.lineOf(off)
	if d.lineStart(i) < off {
		i++
	}
	return i
}

// anchorLine returns the first line at or after line from that equals the
// anchor (see placed), or -1.
func anchorLine(d *doc, anchor string, from int) int {
	want := strings.TrimSpace(anchor)
	folded := fold(want)
	for i := from; i < d.numLines(); i++ {
		l := string(bytes.TrimSpace(d.content(i)))
		if l == want || fold(l) == folded {
			return i
		}
	}
	return -1
}

// fold maps typographic punctuation to ASCII (FORMATS.md section 0, tier 7):
// Unicode dashes and the minus sign to "-", curly quotes to ' and ", and the
// Unicode spaces to a space.
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 0x2010 && r <= 0x2015, r == 0x2212:
			return '-'
		case r == 0x2018, r == 0x2019, r == 0x201A, r == 0x201B:
			return '\''
		case r == 0x201C, r == 0x201D, r == 0x201E, r == 0x201F:
			return '"'
		case r == 0xA0, r >= 0x2002 && r <= 0x200A, r == 0x202F, r == 0x205F, r == 0x3000:
			return ' '
		}
		return r
	}, s)
}
