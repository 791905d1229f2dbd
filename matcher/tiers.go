package matcher

import (
	"bytes"
	"sort"
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
		if endNL {
			r.end = d.lineStart(c + m + 1)
			r.virtualNL = !bytes.HasSuffix(d.line(c+m), nl)
		} else {
			r.end = d.lineStart(c+m) + len(d.content(c+m))
		}
		return r, true
	}
	// Every line is compared whole once its indentation is set aside.
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
