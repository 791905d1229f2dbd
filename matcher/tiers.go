package matcher

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// match is one place an old text was found, with what the replacement
// needs to know about how it was found.
type match struct {
	start, end int // byte offsets in the document
	tier       Tier
	// shift is the indentation the file has more (deeper) or less than the
	// old text; the new text is shifted the same way.
	shift  string
	deeper bool
	// trimLead and trimTrail count the blank lines dropped from the edges of
	// the old text (BlankEdges).
	trimLead, trimTrail int
	// virtualNL: the old text's final newline stood for the end of a file
	// that has no final newline.
	virtualNL bool
	// levels, for the IndentLevels tier: how the old text's indentation
	// was read and how the file's is written, for the new text.
	levels *levels
}

var nl = []byte("\n")

// firstTier returns the matches of the first tier that finds any.
func firstTier(d *doc, old []byte) ([]match, Tier) {
	return firstTierWhere(d, old, nil)
}

// firstTierWhere returns the matches that keep accepts (all when keep is
// nil) of the first tier that finds any such: a match outside the region an
// edit is pinned to never stops the search at a tier.
func firstTierWhere(d *doc, old []byte, keep func(match) bool) ([]match, Tier) {
	only := func(ms []match) []match {
		if keep == nil {
			return ms
		}
		out := ms[:0]
		for _, m := range ms {
			if keep(m) {
				out = append(out, m)
			}
		}
		return out
	}
	if ms := only(findExact(d, old)); len(ms) > 0 {
		return ms, Exact
	}
	norm := bytes.ReplaceAll(old, []byte("\r\n"), nl)
	if ms := only(findLoose(d, norm, false)); len(ms) > 0 {
		return ms, LineEndings
	}
	if ms := only(findLoose(d, norm, true)); len(ms) > 0 {
		return ms, TrailingSpace
	}
	lines, endNL := splitLines(norm)
	if ms := only(findShifted(d, lines, endNL, Indentation)); len(ms) > 0 {
		return ms, Indentation
	}
	lead, trail := blankEdges(lines)
	if lead+trail > 0 && lead < len(lines) {
		kept := lines[lead : len(lines)-trail]
		ms := only(findShifted(d, kept, endNL || trail > 0, BlankEdges))
		for i := range ms {
			ms[i].trimLead, ms[i].trimTrail = lead, trail
		}
		if len(ms) > 0 {
			return ms, BlankEdges
		}
	}
	if ms := only(findLevels(d, lines, endNL)); len(ms) > 0 {
		return ms, IndentLevels
	}
	if lead+trail > 0 && lead < len(lines) {
		ms := only(findLevels(d, lines[lead:len(lines)-trail], endNL || trail > 0))
		for i := range ms {
			ms[i].trimLead, ms[i].trimTrail = lead, trail
		}
		if len(ms) > 0 {
			return ms, IndentLevels
		}
	}
	return nil, Exact
}

// splitLines splits text into lines without their "\n"; endNL reports a
// final "\n" (which then does not start another line).
func splitLines(text []byte) (lines [][]byte, endNL bool) {
	endNL = bytes.HasSuffix(text, nl)
	if endNL {
		text = text[:len(text)-1]
	}
	return bytes.Split(text, nl), endNL
}

func isBlank(b []byte) bool { return len(bytes.Trim(b, " \t\r")) == 0 }

func blankEdges(lines [][]byte) (lead, trail int) {
	for lead < len(lines) && isBlank(lines[lead]) {
		lead++
	}
	for trail < len(lines)-lead && isBlank(lines[len(lines)-1-trail]) {
		trail++
	}
	return lead, trail
}

// findExact finds every occurrence of old, overlapping ones included. An old
// text with a whole line inside it (between two "\n") finds its candidates
// through that line's hash; a shorter one is searched for block by block.
func findExact(d *doc, old []byte) []match {
	pieces := bytes.Split(old, nl)
	m := len(pieces) - 1
	anchor := -1
	for j := 1; j < m; j++ {
		if anchor < 0 || len(pieces[j]) > len(pieces[anchor]) {
			anchor = j
		}
	}
	var out []match
	add := func(s int) { out = append(out, match{start: s, end: s + len(old), tier: Exact}) }
	if anchor > 0 {
		off := 0
		for j := 0; j < anchor; j++ {
			off += len(pieces[j]) + 1
		}
		keys := make([]uint64, 0, m-1)
		for j := 1; j < m; j++ {
			keys = append(keys, hashKey1(pieces[j]))
		}
		win := d.windowsOf(false, keys)
		d.eachKey(false, hashKey1(pieces[anchor]), func(c int) {
			if first := c - anchor + 1; len(out) >= maxMatches || first < 0 || first >= len(win) || !win[first] {
				return
			}
			s := d.lineStart(c) - off
			if s >= 0 && s+len(old) <= d.size() && bytes.Equal(d.slice(s, s+len(old)), old) {
				add(s)
			}
		})
		return out
	}
	for bi, b := range d.blocks {
		for p := 0; ; {
			i := bytes.Index(b.buf[p:], old)
			if i < 0 {
				break
			}
			add(d.byteBase[bi] + p + i)
			p += i + 1
		}
	}
	// Blocks end at line ends, so only an old text "A\nB" can straddle two
	// blocks, with its "\n" as the last byte of the first block.
	if m == 1 && len(pieces[1]) > 0 {
		head := append(append([]byte{}, pieces[0]...), '\n')
		for k := 0; k+1 < len(d.blocks); k++ {
			if bytes.HasSuffix(d.blocks[k].buf, head) && bytes.HasPrefix(d.blocks[k+1].buf, pieces[1]) {
				add(d.byteBase[k+1] - len(head))
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	}
	return out
}

// findLoose is the LineEndings tier (trailing false) and the TrailingSpace
// tier (trailing true) for an old text whose "\r\n" are already "\n". Like
// Exact, the old text may start inside its first line and end inside its
// last; only line ends are compared loosely.
func findLoose(d *doc, old []byte, trailing bool) []match {
	lines, endNL := splitLines(old)
	m := len(lines) - 1
	norm := func(b []byte) []byte { return bytes.TrimSuffix(b, []byte("\r")) }
	tier := LineEndings
	if trailing {
		tier = TrailingSpace
		norm = func(b []byte) []byte { return bytes.TrimRight(b, " \t\r") }
	}
	np := make([][]byte, len(lines))
	for j, l := range lines {
		np[j] = norm(l)
	}
	// lastWhole: the last line ends in white space the tier ignores, so it
	// must be the whole line, not a prefix of a longer one.
	lastWhole := !endNL && len(np[m]) != len(lines[m])
	if m == 0 && !endNL && !lastWhole {
		return nil // one partial line, no line end: Exact already said
	}
	n := d.numLines()
	check := func(c int) (match, bool) {
		if c < 0 || c+m >= n {
			return match{}, false
		}
		r := match{tier: tier}
		for j := 0; j <= m; j++ {
			f := norm(d.content(c + j))
			p := np[j]
			switch {
			case j == 0:
				if !bytes.HasSuffix(f, p) {
					return match{}, false
				}
				r.start = d.lineStart(c) + len(f) - len(p)
				if m == 0 && lastWhole {
					r.end = d.lineStart(c) + len(d.content(c))
				}
			case j < m || endNL || lastWhole:
				if !bytes.Equal(f, p) {
					return match{}, false
				}
				if j == m && !endNL {
					r.end = d.lineStart(c+m) + len(d.content(c+m))
				}
			default:
				if !bytes.HasPrefix(f, p) {
					return match{}, false
				}
				r.end = d.lineStart(c+m) + len(p)
			}
		}
		if endNL {
			r.end = d.lineStart(c + m + 1)
			r.virtualNL = !bytes.HasSuffix(d.line(c+m), nl)
		}
		return r, true
	}
	return candidates(d, np, m, endNL, trailing, check)
}

// candidates runs check on every line where a match could start: through
// the hash of the longest whole line of the old text when it has one, else
// on every line.
func candidates(d *doc, np [][]byte, m int, endNL, trimmed bool, check func(int) (match, bool)) []match {
	anchor := -1
	for j := 1; j <= m; j++ {
		if (j < m || endNL) && (anchor < 0 || len(np[j]) > len(np[anchor])) {
			anchor = j
		}
	}
	var out []match
	if anchor > 0 {
		key := hashKey1
		if trimmed {
			key = hashKey2
		}
		// The lines compared whole: 1 … m-1, and m when the old text ends
		// with its line.
		last := m - 1
		if endNL {
			last = m
		}
		keys := make([]uint64, 0, last)
		for j := 1; j <= last; j++ {
			keys = append(keys, key(np[j]))
		}
		win := d.windowsOf(trimmed, keys)
		d.eachKey(trimmed, key(np[anchor]), func(c int) {
			if first := c - anchor + 1; len(out) >= maxMatches || first < 0 || first >= len(win) || !win[first] {
				return
			}
			if r, ok := check(c - anchor); ok {
				out = append(out, r)
			}
		})
		return out
	}
	for c := 0; c+m < d.numLines(); c++ {
		if r, ok := check(c); ok {
			out = append(out, r)
		}
	}
	return out
}

func leadLen(b []byte) int { return len(b) - len(bytes.TrimLeft(b, " \t")) }

// findShifted is the Indentation tier, and with tier BlankEdges the same
// match on edge-trimmed lines where no shift is also allowed. Lines match
// whole, each shifted by the same indentation.
func findShifted(d *doc, lines [][]byte, endNL bool, tier Tier) []match {
	m := len(lines) - 1
	tl := make([][]byte, len(lines))
	anchor, nonBlank := -1, false
	for j, l := range lines {
		tl[j] = bytes.TrimRight(l, " \t\r")
		if len(tl[j]) > 0 {
			nonBlank = true
			if anchor < 0 || len(tl[j])-leadLen(tl[j]) > len(tl[anchor])-leadLen(tl[anchor]) {
				anchor = j
			}
		}
	}
	if !nonBlank {
		return nil
	}
	n := d.numLines()
	check := func(c int) (match, bool) {
		if c < 0 || c+m >= n {
			return match{}, false
		}
		r := match{tier: tier, start: d.lineStart(c)}
		found := false
		for j := 0; j <= m; j++ {
			f := bytes.TrimRight(d.content(c+j), " \t")
			o := tl[j]
			if len(o) == 0 {
				if len(f) != 0 {
					return match{}, false
				}
				continue
			}
			lf, lo := leadLen(f), leadLen(o)
			if !bytes.Equal(f[lf:], o[lo:]) {
				return match{}, false
			}
			fi, oi := string(f[:lf]), string(o[:lo])
			if !found {
				found = true
				switch {
				case len(fi) >= len(oi) && fi[len(fi)-len(oi):] == oi:
					r.shift, r.deeper = fi[:len(fi)-len(oi)], true
				case len(oi) > len(fi) && oi[len(oi)-len(fi):] == fi:
					r.shift, r.deeper = oi[:len(oi)-len(fi)], false
				default:
					return match{}, false
				}
				if !oneChar(r.shift) || (r.shift == "" && tier == Indentation) {
					return match{}, false
				}
				continue
			}
			if r.deeper && fi != r.shift+oi || !r.deeper && oi != r.shift+fi {
				return match{}, false
			}
		}
		d.setEnd(&r, c+m, endNL)
		return r, true
	}
	// Every line is compared whole once its indentation is set aside.
	return d.trimmedCandidates(tl, anchor, check)
}

// oneChar reports whether s is made of a single repeated byte: an
// indentation shift never mixes tabs and spaces.
func oneChar(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] != s[0] {
			return false
		}
	}
	return true
}

// The IndentLevels tier reads leading white space as indentation levels, so
// that an old text indented with spaces finds the file that indents with
// tabs (the commonest slip of a model editing Go), the reverse, or two
// spaces a level against four. A level of the old text is a tab, or for
// spaces its smallest step between two indentations; a level of the file is
// a tab, or for spaces the step its lines take most often (fileIndent).
// Lines match whole, with the same levels relative to the first non-blank
// line on both sides. A line whose indentation mixes tabs and spaces, and an
// old text whose indentation is not a whole number of its levels, match
// nothing here: the tier reads levels, it does not guess them.

// levels says how an IndentLevels match writes the new text: its lines are
// read in the old text's levels and written in the file's.
type levels struct {
	from     byte   // the old text's indentation character
	fromUnit int    // the old text's width of a level; 0 when it has one indentation only
	fromBase int    // the indentation of the old text's first non-blank line
	base     string // the file's indentation of that line
	to       byte   // the file's indentation character; 0 when unknown
	toUnit   int    // the file's width of a level; 0 when unknown
}

// indentRun returns the width of b's leading white space and its character
// (0 when there is none); ok is false when it mixes tabs and spaces.
func indentRun(b []byte) (w int, ch byte, ok bool) {
	for w < len(b) && (b[w] == ' ' || b[w] == '\t') {
		if ch != 0 && b[w] != ch {
			return 0, 0, false
		}
		ch = b[w]
		w++
	}
	return w, ch, true
}

// smallestStep returns the smallest difference between two different
// widths, 0 when they are all equal.
func smallestStep(ws []int) int {
	s := slices.Clone(ws)
	slices.Sort(s)
	step := 0
	for i := 1; i < len(s); i++ {
		if g := s[i] - s[i-1]; g > 0 && (step == 0 || g < step) {
			step = g
		}
	}
	return step
}

// fileIndent returns the character most of d's indented lines begin with
// and the width of a level in it: 1 for tabs; for spaces the increase of
// indentation from one non-blank line to the next that is most common (an
// aligned continuation line is rarer than a level), 0 when none.
func fileIndent(d *doc) (ch byte, unit int) {
	var tabs, spaces int
	var steps [17]int
	prev := -1 // indentation of the previous non-blank line in spaces, -1 after a tab or a mix
	for _, b := range d.blocks {
		for j := range b.starts {
			end := len(b.buf)
			if j+1 < len(b.starts) {
				end = int(b.starts[j+1])
			}
			l := bytes.TrimRight(b.buf[b.starts[j]:end], " \t\r\n")
			if len(l) == 0 {
				continue
			}
			w, c, ok := indentRun(l)
			switch {
			case !ok || c == '\t':
				if ok {
					tabs++
				}
				prev = -1
				continue
			case c == ' ':
				spaces++
			}
			if prev >= 0 && w > prev && w-prev < len(steps) {
				steps[w-prev]++
			}
			prev = w
		}
	}
	if tabs > spaces {
		return '\t', 1
	}
	if spaces == 0 {
		return 0, 0
	}
	for s := 1; s < len(steps); s++ {
		if steps[s] > steps[unit] {
			unit = s
		}
	}
	return ' ', unit
}

// findLevels is the IndentLevels tier (see above).
func findLevels(d *doc, lines [][]byte, endNL bool) []match {
	m := len(lines) - 1
	tl := make([][]byte, len(lines))
	var widths []int
	var ch byte
	anchor, first := -1, -1
	for j, l := range lines {
		tl[j] = bytes.TrimRight(l, " \t\r")
		if len(tl[j]) == 0 {
			continue
		}
		w, c, ok := indentRun(tl[j])
		if !ok || c != 0 && ch != 0 && c != ch {
			return nil
		}
		if c != 0 {
			ch = c
		}
		widths = append(widths, w)
		if first < 0 {
			first = j
		}
		if anchor < 0 || len(tl[j])-w > len(tl[anchor])-leadLen(tl[anchor]) {
			anchor = j
		}
	}
	if ch == 0 {
		return nil // no indentation to read: the Indentation tier has said
	}
	unit := 1
	if ch == ' ' {
		unit = smallestStep(widths)
	}
	base := leadLen(tl[first])
	rel := make([]int, len(tl)) // each line's level, relative to the first non-blank line
	for j, l := range tl {
		if len(l) == 0 {
			continue
		}
		w := leadLen(l)
		if unit > 0 && w%unit != 0 {
			return nil // not a whole number of levels
		}
		if unit > 0 {
			rel[j] = (w - base) / unit
		}
	}
	fileCh, fileUnit, profiled := byte(0), 0, false
	profile := func() {
		if !profiled {
			fileCh, fileUnit = fileIndent(d)
			profiled = true
		}
	}
	n := d.numLines()
	fw := make([]int, len(tl))
	check := func(c int) (match, bool) {
		if c < 0 || c+m >= n {
			return match{}, false
		}
		var fch byte
		for j := 0; j <= m; j++ {
			f := bytes.TrimRight(d.content(c+j), " \t")
			o := tl[j]
			if len(o) == 0 {
				if len(f) != 0 {
					return match{}, false
				}
				continue
			}
			w, c2, ok := indentRun(f)
			if !ok || c2 != 0 && fch != 0 && c2 != fch || !bytes.Equal(f[w:], o[leadLen(o):]) {
				return match{}, false
			}
			if c2 != 0 {
				fch = c2
			}
			fw[j] = w
		}
		lv := &levels{from: ch, fromUnit: unit, fromBase: base, base: string(d.content(c + first)[:fw[first]])}
		switch fch {
		case '\t':
			lv.to, lv.toUnit = '\t', 1
		case ' ':
			profile()
			lv.to, lv.toUnit = ' ', fileUnit
			if fileCh != ' ' || fileUnit == 0 {
				var ws []int
				for j, o := range tl {
					if len(o) > 0 {
						ws = append(ws, fw[j])
					}
				}
				lv.toUnit = smallestStep(ws)
			}
		default:
			profile()
			lv.to, lv.toUnit = fileCh, fileUnit
		}
		for j, o := range tl {
			if len(o) == 0 {
				continue
			}
			if lv.toUnit > 0 && fw[j]%lv.toUnit != 0 {
				return match{}, false // the file's line is not a whole number of levels
			}
			if delta := fw[j] - fw[first]; delta != rel[j]*lv.toUnit || lv.toUnit == 0 && (delta != 0 || rel[j] != 0) {
				return match{}, false
			}
		}
		r := match{tier: IndentLevels, start: d.lineStart(c), levels: lv}
		d.setEnd(&r, c+m, endNL)
		return r, true
	}
	// As in findShifted: every line is compared whole once its indentation
	// is set aside, so the trimmed hashes find the candidates.
	return d.trimmedCandidates(tl, anchor, check)
}

// trimmedCandidates runs check on every place whose lines, with their
// indentation set aside, hash as tl's do (anchored on tl[anchor], the
// rarest line), and gathers the matches it accepts, at most maxMatches.
func (d *doc) trimmedCandidates(tl [][]byte, anchor int, check func(c int) (match, bool)) []match {
	keys := make([]uint64, len(tl))
	for j, l := range tl {
		keys[j] = hashKey2(l)
	}
	win := d.windowsOf(true, keys)
	var out []match
	d.eachKey(true, hashKey2(tl[anchor]), func(c int) {
		if first := c - anchor; len(out) >= maxMatches || first < 0 || first >= len(win) || !win[first] {
			return
		}
		if r, ok := check(c - anchor); ok {
			out = append(out, r)
		}
	})
	return out
}

// setEnd ends r at line last: after its line break when the old text ends
// with one (virtualNL when the file's last line has none), else at the
// line's end.
func (d *doc) setEnd(r *match, last int, endNL bool) {
	if endNL {
		r.end = d.lineStart(last + 1)
		r.virtualNL = !bytes.HasSuffix(d.line(last), nl)
	} else {
		r.end = d.lineStart(last) + len(d.content(last))
	}
}

// relevel writes the new text of an IndentLevels match in the file's
// indentation: each line's level relative to the old text's first line,
// read in the old text's levels, is written in the file's, from the file's
// indentation of the matched first line. Blank lines stay as they are.
func relevel(x []byte, lv *levels) ([]byte, error) {
	ls := bytes.SplitAfter(x, nl)
	unit := lv.fromUnit
	if unit == 0 {
		// The old text had one indentation: its level is read from the
		// steps of the new text.
		ws := []int{lv.fromBase}
		for _, l := range ls {
			if w, _, ok := indentRun(l); ok && len(bytes.TrimSpace(l)) > 0 {
				ws = append(ws, w)
			}
		}
		unit = smallestStep(ws)
	}
	var out []byte
	for i, l := range ls {
		if len(bytes.TrimSpace(l)) == 0 {
			out = append(out, l...)
			continue
		}
		w, c, ok := indentRun(l)
		what := ""
		switch {
		case !ok:
			what = "mixes tabs and spaces in its indentation"
		case c != 0 && c != lv.from:
			what = fmt.Sprintf("is indented with %s where the old text has %s", indentName(c), indentName(lv.from))
		case w != lv.fromBase && (unit == 0 || w%unit != 0 || (w-lv.fromBase)%unit != 0):
			what = fmt.Sprintf("is indented by %d %s, not a whole number of the old text's levels of %d", w, indentName(c), unit)
		}
		rel := 0
		if what == "" && w != lv.fromBase {
			rel = (w - lv.fromBase) / unit
		}
		ind := lv.base
		switch {
		case what != "" || rel == 0:
		case lv.toUnit == 0:
			what = "is indented deeper or shallower than the old text, and the file's width of a level is unknown"
		case rel > 0:
			ind += strings.Repeat(string(lv.to), rel*lv.toUnit)
		case -rel*lv.toUnit > len(lv.base):
			what = "is indented less than the file's lines at that place allow"
		default:
			ind = ind[:len(ind)+rel*lv.toUnit]
		}
		if what != "" {
			return nil, &IndentError{Line: i + 1, What: what, To: lv.to, ToUnit: lv.toUnit}
		}
		out = append(append(out, ind...), l[w:]...)
	}
	return out, nil
}

// indentName names an indentation character in a message.
func indentName(c byte) string {
	if c == '\t' {
		return "tabs"
	}
	return "spaces"
}
