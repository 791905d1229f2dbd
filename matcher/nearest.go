package matcher

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/autocoder/autocoder/unidiff"
)

// The nearest region is searched in two bounded passes. A cheap pass scores
// every line of the file (1 when its trimmed text equals a line of the old
// text, else the share of its character trigrams found in the old text) and
// slides a window of the old text's line count over the scores: linear in the
// file. Only the few best windows get the costly similarity (a line alignment
// weighted by bigram likeness, in a band along the diagonal), which grows
// linearly with the old text, not the file.

const (
	topWindows    = 5
	minSimilarity = 0.3 // below this a region misleads more than it helps
	// maxHintChanges is how many changed lines a near miss's diff may show:
	// past it the diff would cost time growing with the square of the lines,
	// for a hint no one copies from.
	maxHintChanges = 64
)

// nearest returns the region of d most like old, or nil.
func nearest(d *doc, old []byte) *Region {
	norm := bytes.ReplaceAll(old, []byte("\r\n"), nl)
	lines, _ := splitLines(norm)
	lead, trail := blankEdges(lines)
	if lead >= len(lines) {
		return nil
	}
	lines = lines[lead : len(lines)-trail]
	k := len(lines)
	n := d.numLines()
	if n == 0 {
		return nil
	}
	win := min(k, n)
	trimmed := make([]string, k)
	// A hit on a long line says more than a hit on "}" or "return err",
	// which occur everywhere: hits weigh by length, up to 16 bytes.
	keys := map[uint64]float64{}
	for j, l := range lines {
		trimmed[j] = string(bytes.Trim(l, " \t\r"))
		if trimmed[j] != "" {
			keys[hashKey2(l)] = min(1, float64(len(trimmed[j]))/16)
		}
	}
	blankKey := hashKey2(nil)
	scores := make([]float64, n)
	hits := 0
	for bi, b := range d.blocks {
		for j, x := range b.k2 {
			if x != blankKey {
				if w, ok := keys[x]; ok {
					scores[d.lineBase[bi]+j] = w
					hits++
				}
			}
		}
	}
	if hits == 0 || k == 1 {
		trigramScores(d, trimmed, scores)
	}
	starts := bestWindows(scores, win)
	var best *Region
	for _, c := range starts {
		got := make([]string, win)
		for j := range got {
			got[j] = string(bytes.Trim(d.content(c+j), " \t"))
		}
		sim := similarity(trimmed, got)
		if sim >= minSimilarity && (best == nil || sim > best.Similarity) {
			best = &Region{StartLine: c + 1, EndLine: c + win, Similarity: sim}
		}
	}
	if best == nil {
		return nil
	}
	best.WhiteSpace = whiteSpaceOnly(lines, d, best.StartLine-1, win)
	var region strings.Builder
	for j := best.StartLine - 1; j < best.EndLine; j++ {
		region.Write(d.content(j))
		region.WriteByte('\n')
	}
	// The diff is for a region that differs in a few lines. The Myers diff
	// costs the lines times the changes, so when more than maxHintChanges
	// lines differ (in step: the pairing that similarity starts from
	// bounds the changes a diff needs) the hint names the lines without it.
	changed := max(len(lines), win) - min(len(lines), win)
	for j := 0; j < min(len(lines), win); j++ {
		if !bytes.Equal(bytes.TrimRight(lines[j], "\r"), bytes.TrimRight(d.content(best.StartLine-1+j), "\r")) {
			changed++
		}
	}
	if changed > maxHintChanges {
		best.Changed = changed
		return best
	}
	a := string(bytes.Join(lines, nl)) + "\n"
	best.Diff = unidiff.Unified("old text", fmt.Sprintf("file lines %d-%d", best.StartLine, best.EndLine), a, region.String(), unidiff.DefaultContext)
	return best
}

// trigramScores scores each line by the share of its trigrams that occur in
// the old text, using a 64 Ki-bit set so the pass stays a tight loop.
func trigramScores(d *doc, old []string, scores []float64) {
	var set [1 << 10]uint64
	tri := func(a, b, c byte) uint32 {
		return (uint32(a)*0x9E3779B1 ^ uint32(b)*0x85EBCA6B ^ uint32(c)*0xC2B2AE35) >> 16
	}
	total := 0
	for _, l := range old {
		for i := 0; i+2 < len(l); i++ {
			h := tri(l[i], l[i+1], l[i+2])
			set[h>>6] |= 1 << (h & 63)
			total++
		}
	}
	avg := max(1, total/max(1, len(old)))
	for i := range scores {
		if scores[i] > 0 {
			continue // an equal line already scored
		}
		l := bytes.Trim(d.content(i), " \t")
		if len(l) < 3 {
			continue
		}
		in := 0
		for j := 0; j+2 < len(l); j++ {
			h := tri(l[j], l[j+1], l[j+2])
			if set[h>>6]&(1<<(h&63)) != 0 {
				in++
			}
		}
		scores[i] = 0.9 * float64(in) / float64(max(len(l)-2, avg))
	}
}

// bestWindows returns the starts of the windows of width w with the highest
// summed scores, best first, earliest first among equals.
func bestWindows(scores []float64, w int) []int {
	type cand struct {
		start int
		sum   float64
	}
	var top []cand
	sum := 0.0
	for i, s := range scores {
		sum += s
		if i >= w {
			sum -= scores[i-w]
		}
		if i < w-1 || sum <= 0 {
			continue
		}
		c := cand{i - w + 1, sum}
		pos := len(top)
		for pos > 0 && top[pos-1].sum < c.sum {
			pos--
		}
		if pos < topWindows {
			top = append(top[:pos], append([]cand{c}, top[pos:]...)...)
			if len(top) > topWindows {
				top = top[:topWindows]
			}
		}
	}
	out := make([]int, len(top))
	for i, c := range top {
		out[i] = c.start
	}
	return out
}

// similarity aligns two lists of lines, weighting each pair by its bigram
// likeness (equal lines weigh 1), and returns 2*weight/(len(a)+len(b)).
// The alignment keeps to a band of alignBand lines either side of the
// diagonal, so its cost is linear in the lines (a full alignment is
// quadratic: a near miss of 400 lines of a repetitive file took seconds);
// a region more than alignBand lines out of step with the old text scores
// lower than it would, which only matters for a region that alike already.
func similarity(a, b []string) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	ga, gb := bigramsOf(a), bigramsOf(b)
	w := func(i, j int) float64 {
		if a[i] == b[j] {
			return 1
		}
		if s := dice(ga[i], gb[j], len(a[i]), len(b[j])); s >= 0.5 {
			return s
		}
		return 0
	}
	// row[j] is the best weight aligning a[:i] with b[:j]. Cells outside
	// the band keep the value of the last row that computed them: a lower
	// bound, since the weight only grows with i and j.
	n, m := len(a), len(b)
	row := make([]float64, m+1)
	for i := 1; i <= n; i++ {
		c := i * m / n
		lo, hi := max(1, c-alignBand), min(m, c+alignBand)
		diag := row[lo-1]
		for j := lo; j <= hi; j++ {
			up := row[j]
			row[j] = max(up, row[j-1], diag+w(i-1, j-1))
			diag = up
		}
	}
	best := 0.0
	for _, v := range row {
		best = max(best, v)
	}
	return 2 * best / float64(n+m)
}

// alignBand is how far out of step with the old text similarity follows a
// region, in lines.
const alignBand = 16

// bigramsOf gives each line's byte bigrams, sorted, for dice.
func bigramsOf(lines []string) [][]uint16 {
	out := make([][]uint16, len(lines))
	for i, l := range lines {
		if len(l) < 2 {
			continue
		}
		g := make([]uint16, len(l)-1)
		for k := 0; k+1 < len(l); k++ {
			g[k] = uint16(l[k])<<8 | uint16(l[k+1])
		}
		slices.Sort(g)
		out[i] = g
	}
	return out
}

// dice is the Sørensen–Dice coefficient of the byte bigrams of two lines
// (sorted bigrams x and y of lines of lx and ly bytes).
func dice(x, y []uint16, lx, ly int) float64 {
	if lx < 2 || ly < 2 {
		return 0
	}
	common := 0
	for i, j := 0, 0; i < len(x) && j < len(y); {
		switch {
		case x[i] == y[j]:
			common++
			i++
			j++
		case x[i] < y[j]:
			i++
		default:
			j++
		}
	}
	return 2 * float64(common) / float64(lx-1+ly-1)
}

// whiteSpaceOnly describes how the win lines of d from line start differ
// from the old text's lines when they differ only in the white space at
// their edges, or returns "" when they differ otherwise (or not at all).
func whiteSpaceOnly(old [][]byte, d *doc, start, win int) string {
	if len(old) != win {
		return ""
	}
	fileTabs, fileSpaces, oldTabs, oldSpaces := false, false, false, false
	differ := false
	for j, l := range old {
		f := d.content(start + j)
		l = bytes.TrimRight(l, "\r")
		if !bytes.Equal(bytes.Trim(l, " \t"), bytes.Trim(f, " \t\r")) {
			return ""
		}
		if bytes.Equal(l, bytes.TrimRight(f, "\r")) {
			continue
		}
		differ = true
		fi, oi := indent(f), indent(l)
		fileTabs = fileTabs || bytes.IndexByte(fi, '\t') >= 0
		fileSpaces = fileSpaces || bytes.IndexByte(fi, ' ') >= 0
		oldTabs = oldTabs || bytes.IndexByte(oi, '\t') >= 0
		oldSpaces = oldSpaces || bytes.IndexByte(oi, ' ') >= 0
	}
	switch {
	case !differ:
		return ""
	case fileTabs && !fileSpaces && oldSpaces && !oldTabs:
		return "the file indents with tabs where the old text has spaces"
	case fileSpaces && !fileTabs && oldTabs && !oldSpaces:
		return "the file indents with spaces where the old text has tabs"
	default:
		return "the spaces and tabs at the start or end of some lines differ"
	}
}

// indent returns the leading spaces and tabs of a line.
func indent(l []byte) []byte {
	return l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
}
