package matcher

import (
	"bytes"
	"hash/maphash"
	"sort"
)

// The document is kept as blocks of whole lines rather than one slice so that
// ReplaceAll can apply many edits to a large file without copying the whole
// file for every edit: a splice rebuilds only the blocks it touches. Every
// line also carries two hashes (of its text without the line ending, and of
// its text trimmed of white space at both ends), so that a multi-line old text
// finds its candidates by comparing integers instead of scanning bytes.

// blockTarget is the size at which text is cut into blocks. Small enough that
// rebuilding a block is cheap, large enough that the block list stays short.
const blockTarget = 32 << 10

var seed = maphash.MakeSeed()

// block holds whole lines: it always ends with '\n' unless it is the last
// block of the document.
type block struct {
	buf    []byte
	starts []int32  // start offset of every line in buf
	k1     []uint64 // hash of the line without "\n" and a trailing "\r"
	k2     []uint64 // hash of the line trimmed of spaces, tabs and "\r" at both ends
}

type doc struct {
	blocks   []*block
	lineBase []int // first line of each block; one extra entry for the total
	byteBase []int // first byte of each block; one extra entry for the total
}

func newDoc(text []byte) *doc {
	d := &doc{}
	d.blocks = buildBlocks(text)
	d.rebase()
	return d
}

// buildBlocks cuts text into blocks at line ends. Blocks alias text: no
// block buffer is ever written, because splice builds its text in fresh
// memory, so the caller's content stays untouched without a copy.
func buildBlocks(text []byte) []*block {
	var bs []*block
	for len(text) > 0 {
		n := len(text)
		if n > blockTarget {
			i := bytes.IndexByte(text[blockTarget:], '\n')
			if i >= 0 {
				n = blockTarget + i + 1
			}
		}
		bs = append(bs, newBlock(text[:n:n]))
		text = text[n:]
	}
	return bs
}

func newBlock(buf []byte) *block {
	b := &block{buf: buf}
	for off := 0; off < len(buf); {
		b.starts = append(b.starts, int32(off))
		i := bytes.IndexByte(buf[off:], '\n')
		var content []byte
		if i < 0 {
			content = buf[off:]
			off = len(buf)
		} else {
			content = buf[off : off+i]
			off += i + 1
		}
		b.k1 = append(b.k1, hashKey1(content))
		b.k2 = append(b.k2, hashKey2(content))
	}
	return b
}

func hashKey1(content []byte) uint64 {
	return maphash.Bytes(seed, bytes.TrimSuffix(content, []byte("\r")))
}

func hashKey2(content []byte) uint64 {
	return maphash.Bytes(seed, bytes.Trim(content, " \t\r"))
}

func (d *doc) rebase() {
	d.lineBase = make([]int, len(d.blocks)+1)
	d.byteBase = make([]int, len(d.blocks)+1)
	for i, b := range d.blocks {
		d.lineBase[i+1] = d.lineBase[i] + len(b.starts)
		d.byteBase[i+1] = d.byteBase[i] + len(b.buf)
	}
}

func (d *doc) numLines() int { return d.lineBase[len(d.blocks)] }
func (d *doc) size() int     { return d.byteBase[len(d.blocks)] }

// loc finds the block holding line i and the line's index inside it.
func (d *doc) loc(i int) (*block, int) {
	bi := sort.SearchInts(d.lineBase, i+1) - 1
	return d.blocks[bi], i - d.lineBase[bi]
}

// line returns line i (0-based) with its terminator, if it has one.
func (d *doc) line(i int) []byte {
	b, j := d.loc(i)
	end := len(b.buf)
	if j+1 < len(b.starts) {
		end = int(b.starts[j+1])
	}
	return b.buf[b.starts[j]:end]
}

// content returns line i without "\n" and without a "\r" before it.
func (d *doc) content(i int) []byte {
	return bytes.TrimSuffix(bytes.TrimSuffix(d.line(i), []byte("\n")), []byte("\r"))
}

// lineStart returns the offset of line i; lineStart(numLines()) is size().
func (d *doc) lineStart(i int) int {
	if i >= d.numLines() {
		return d.size()
	}
	bi := sort.SearchInts(d.lineBase, i+1) - 1
	return d.byteBase[bi] + int(d.blocks[bi].starts[i-d.lineBase[bi]])
}

// lineOf returns the line holding byte offset off (the last line for size()).
func (d *doc) lineOf(off int) int {
	n := d.numLines()
	if n == 0 {
		return 0
	}
	if off >= d.size() {
		return n - 1
	}
	bi := sort.SearchInts(d.byteBase, off+1) - 1
	b := d.blocks[bi]
	rel := int32(off - d.byteBase[bi])
	j := sort.Search(len(b.starts), func(k int) bool { return b.starts[k] > rel }) - 1
	return d.lineBase[bi] + j
}

// slice returns the bytes in [a, b). It aliases a block when it can; callers
// only read it.
func (d *doc) slice(a, b int) []byte {
	if a >= b {
		return nil
	}
	bi := sort.SearchInts(d.byteBase, a+1) - 1
	if b <= d.byteBase[bi+1] {
		base := d.byteBase[bi]
		return d.blocks[bi].buf[a-base : b-base]
	}
	out := make([]byte, 0, b-a)
	for ; bi < len(d.blocks) && d.byteBase[bi] < b; bi++ {
		base := d.byteBase[bi]
		buf := d.blocks[bi].buf
		lo, hi := max(a-base, 0), min(b-base, len(buf))
		out = append(out, buf[lo:hi]...)
	}
	return out
}

// eachKey calls fn with every line whose key (k1 or k2) equals k.
func (d *doc) eachKey(trimmed bool, k uint64, fn func(i int)) {
	for bi, b := range d.blocks {
		keys := b.k1
		if trimmed {
			keys = b.k2
		}
		for j, x := range keys {
			if x == k {
				fn(d.lineBase[bi] + j)
			}
		}
	}
}

// splice replaces the bytes [a, b) with x, rebuilding only the blocks that
// hold them (and the next block when the result would leave a line cut in two).
func (d *doc) splice(a, b int, x []byte) {
	if len(d.blocks) == 0 {
		d.blocks = buildBlocks(x)
		d.rebase()
		return
	}
	first := sort.SearchInts(d.byteBase, a+1) - 1
	if first >= len(d.blocks) {
		first = len(d.blocks) - 1
	}
	last := sort.SearchInts(d.byteBase, max(b, a+1)) - 1
	if last >= len(d.blocks) {
		last = len(d.blocks) - 1
	}
	if last < first {
		last = first
	}
	base := d.byteBase[first]
	var text []byte
	for i := first; i <= last; i++ {
		text = append(text, d.blocks[i].buf...)
	}
	text = append(text[:a-base:a-base], append(append([]byte{}, x...), text[b-base:]...)...)
	// A block must end at a line end, so a splice that removes or replaces
	// the final "\n" of its last block takes in the next block as well.
	for last+1 < len(d.blocks) && (len(text) == 0 || text[len(text)-1] != '\n') {
		last++
		text = append(text, d.blocks[last].buf...)
	}
	nb := buildBlocks(text)
	d.blocks = append(d.blocks[:first:first], append(nb, d.blocks[last+1:]...)...)
	d.rebase()
}

// bytes returns the whole text as one fresh slice.
func (d *doc) bytes() []byte {
	out := make([]byte, 0, d.size())
	for _, b := range d.blocks {
		out = append(out, b.buf...)
	}
	return out
}

// windowsOf reports, for every line c, whether lines c, c+1, …,
// c+len(keys)-1 carry keys (k2 when trimmed, else k1): a Rabin–Karp pass
// over the lines' hashes, linear in the document. The tiers use it to check
// a multi-line old text only where every whole line already agrees, so that
// a file of many alike lines does not cost lines × old lines (a near-miss
// edit in a 400 KB file of repeated lines took minutes). Equal keys are
// necessary, not sufficient: callers still compare the bytes. Nil when keys
// is empty (every line passes).
func (d *doc) windowsOf(trimmed bool, keys []uint64) []bool {
	n, l := d.numLines(), len(keys)
	if l == 0 {
		return nil
	}
	ok := make([]bool, n)
	if l > n {
		return ok
	}
	const base = 0x9e3779b97f4a7c15 // odd: multiplying by it loses no bits mod 2^64
	var want, top uint64 = 0, 1
	for _, k := range keys {
		want = want*base + k
	}
	for i := 1; i < l; i++ {
		top *= base // base^(l-1)
	}
	all := make([]uint64, 0, n)
	for _, b := range d.blocks {
		if trimmed {
			all = append(all, b.k2...)
		} else {
			all = append(all, b.k1...)
		}
	}
	var h uint64
	for i := 0; i < n; i++ {
		if i >= l {
			h -= all[i-l] * top
		}
		h = h*base + all[i]
		if i >= l-1 && h == want {
			ok[i-l+1] = true
		}
	}
	return ok
}

// maxMatches caps the places one tier reports: past it the old text is
// ambiguous many times over, and checking every further place in a file
// of alike lines would cost places × old lines.
const maxMatches = 100
