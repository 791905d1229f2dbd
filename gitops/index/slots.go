package index

// The entries of an Index, without a slot per entry in memory: the table
// of the file's entries (slotTable) and the sequence of the index's
// entries as pieces of it (slotSeq). A session's index on a 1M-entry
// repository is the shared index as git wrote it plus a few changed
// entries: reading it then costs what the changes cost, not a copy of a
// million slots (24 MB) per process, and a write walks the changes, not
// every entry.

import (
	"encoding/binary"
	"sort"
)

// slotTable lists the entries of Index.data in the file's order: held in
// memory (scanEntries, or a shared index written now), or read in place
// from a kept scan (scan.go, keptScan).
type slotTable struct {
	mem  []idxSlot
	scan []byte    // scanSlotLen bytes a slot, when not nil
	kept *keptScan // with scan: the checks of its slots
	// given: some slot of mem has given set (a shared index written
	// now, keeping who vouched for which entry); FinishIndex clears them.
	given bool
	// gitlinks are the positions of the gitlink entries (submodules), as
	// the walk of the file or its kept scan found them.
	gitlinks []int
}

func (t *slotTable) len() int {
	if t.scan != nil {
		return len(t.scan) / scanSlotLen
	}
	return len(t.mem)
}

// at returns the slot at position k. A slot of a kept scan is checked
// against the file as it is taken (keptScan.check); one that does not fit
// makes the table the walk of the file (keptScan.walk), as if the scan had
// not been kept.
func (t *slotTable) at(k int) idxSlot {
	if t.scan == nil {
		return t.mem[k]
	}
	ks := t.kept
	if !ks.walked.Load() {
		if s, ok := ks.check(t.scan, k); ok {
			return s
		}
		ks.walk()
	}
	return ks.walkedAt(k)
}

// damaged is the error for a table whose kept scan did not fit the file
// and whose file did not walk either: nothing read from it may be written.
func (t *slotTable) damaged() error {
	if t.kept != nil && t.kept.walked.Load() && t.kept.bad != nil {
		return t.kept.bad
	}
	return nil
}

// scanSlot decodes one slot of a kept scan: offset, length, path offset
// and path length (32 bits each, little-endian), the stage.
func scanSlot(p []byte) idxSlot {
	p = p[:scanSlotLen]
	return idxSlot{off: binary.LittleEndian.Uint32(p), size: binary.LittleEndian.Uint32(p[4:]),
		nameOff: binary.LittleEndian.Uint32(p[8:]), nameLen: binary.LittleEndian.Uint32(p[12:]), stage: p[16]}
}

// addFresh appends e to the fresh entries and their paths (an Index's
// fresh and freshNames, or lists being built for it) and returns its slot.
func addFresh(fresh *[]IndexEntry, names *[]byte, e IndexEntry, given bool) idxSlot {
	s := idxSlot{off: uint32(len(*fresh)), nameOff: uint32(len(*names)), nameLen: uint32(len(e.Path)), stage: uint8(e.Stage), fresh: true, given: given}
	*fresh = append(*fresh, e)
	*names = append(*names, e.Path...)
	return s
}

// seg is one piece of a slotSeq: a run of the table's slots, positions
// [a, b), or one slot of its own (a fresh entry).
type seg struct {
	at   int // the position of its first entry in the sequence
	run  bool
	a, b int
	own  idxSlot
}

func (s *seg) size() int {
	if s.run {
		return s.b - s.a
	}
	return 1
}

// slotSeq is the index's entries in git's order, as segments. It is
// rebuilt (seqBuilder) rather than changed in place: a change costs the
// number of segments, which is about the number of entries changed since
// the table was written.
type slotSeq struct {
	segs []seg
	n    int
}

// wholeSeq is the sequence of every entry of a table of n, in its order.
func wholeSeq(n int) slotSeq {
	var b seqBuilder
	b.run(0, n)
	return b.seq()
}

// find returns the segment holding position i.
func (q *slotSeq) find(i int) int {
	return sort.Search(len(q.segs), func(k int) bool { return q.segs[k].at+q.segs[k].size() > i })
}

// get returns the slot at position i; t is the table the runs are of.
func (q *slotSeq) get(t *slotTable, i int) idxSlot {
	s := &q.segs[q.find(i)]
	if s.run {
		return t.at(s.a + i - s.at)
	}
	return s.own
}

// each calls f with every position and its slot, in order, until f
// returns false.
func (q *slotSeq) each(t *slotTable, f func(i int, s *idxSlot) bool) {
	for k := range q.segs {
		g := &q.segs[k]
		if !g.run {
			if !f(g.at, &g.own) {
				return
			}
			continue
		}
		for p := g.a; p < g.b; p++ {
			s := t.at(p)
			if !f(g.at+p-g.a, &s) {
				return
			}
		}
	}
}

// seqBuilder appends to a new slotSeq.
type seqBuilder struct{ q slotSeq }

// run appends the table's slots [a, b), joining a run that ends at a.
func (b *seqBuilder) run(a, c int) {
	if c <= a {
		return
	}
	if n := len(b.q.segs); n > 0 && b.q.segs[n-1].run && b.q.segs[n-1].b == a {
		b.q.segs[n-1].b = c
	} else {
		b.q.segs = append(b.q.segs, seg{at: b.q.n, run: true, a: a, b: c})
	}
	b.q.n += c - a
}

// slot appends one slot of its own.
func (b *seqBuilder) slot(s idxSlot) {
	b.q.segs = append(b.q.segs, seg{at: b.q.n, own: s})
	b.q.n++
}

// copyRange appends the positions [lo, hi) of src.
func (b *seqBuilder) copyRange(src *slotSeq, lo, hi int) {
	if hi <= lo {
		return
	}
	for k := src.find(lo); k < len(src.segs) && src.segs[k].at < hi; k++ {
		g := &src.segs[k]
		if !g.run {
			b.slot(g.own)
			continue
		}
		from := max(lo, g.at) - g.at + g.a
		to := min(hi, g.at+g.size()) - g.at + g.a
		b.run(from, to)
	}
}

func (b *seqBuilder) seq() slotSeq { return b.q }
