package matcher

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/unidiff"
)

// The nearest region is searched in two bounded passes. A cheap pass scores
// every line of the file (1 when its trimmed text equals a line of the old
// text, else the share of its character trigrams found in the old text) and
// slides a window of the old text's line count over the scores: linear in the
// file. Only the few best windows get the costly similarity (a line alignment
// weighted by bigram likeness), which grows with the old text, not the file.

const (
	topWindows    = 5
	minSimilarity = 0.3 // below this a region misleads more than it helps
	maxAlignCells = 1 << 18
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
// Past maxAlignCells it pairs lines in order instead of aligning them.
func similarity(a, b []string) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	w := func(x, y string) float64 {
		if x == y {
			return 1
		}
		if s := dice(x, y); s >= 0.5 {
			return s
		}
		return 0
	}
	if len(a)*len(b) > maxAlignCells {
		total := 0.0
		for i := 0; i < len(a) && i < len(b); i++ {
			total += w(a[i], b[i])
		}
		return 2 * total / float64(len(a)+len(b))
	}
	prev := make([]float64, len(b)+1)
	cur := make([]float64, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cur[j] = max(prev[j], cur[j-1], prev[j-1]+w(a[i-1], b[j-1]))
		}
		prev, cur = cur, prev
	}
	return 2 * prev[len(b)] / float64(len(a)+len(b))
}

// dice is the Sørensen–Dice coefficient of the byte bigrams of x and y.
func dice(x, y string) float64 {
	if len(x) < 2 || len(y) < 2 {
		return 0
	}
	counts := map[string]int{}
	for i := 0; i+1 < len(x); i++ {
		counts[x[i:i+2]]++
	}
	common := 0
	for i := 0; i+1 < len(y); i++ {
		if counts[y[i:i+2]] > 0 {
			counts[y[i:i+2]]--
			common++
		}
	}
	return 2 * float64(common) / float64(len(x)-1+len(y)-1)
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
