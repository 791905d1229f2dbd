package index

// The scan of a shared index, kept: what scanEntries learns of a shared
// index file (every entry's offset, length and path, its gitlinks, its
// racy bound) written down once, so that a later process takes it from a
// file of a few bytes per entry instead of walking the 9 MB (100k entries)
// or 90 MB (1M) shared index again. A Verifier keeps it with the record
// that the file's checksum was verified: both hold for that file only.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"sort"
	"sync"
	"sync/atomic"
)

// scanMagic starts a kept scan; the digit is the layout's version.
const scanMagic = "ACSCAN1\n"

// scanSlotLen is one slot in a kept scan: offset, length, path offset and
// path length (32 bits each, little-endian), the stage.
const scanSlotLen = 17

// encodeScan writes down ix's scan: ix is a shared index as scanEntries
// left it (raw slots only, no stripped entries).
func (ix *Index) encodeScan() []byte {
	v4Names := 0
	if ix.version == 4 {
		v4Names = len(ix.names)
	}
	slots := ix.table.mem
	b := make([]byte, 0, len(scanMagic)+16+(len(slots)+len(ix.table.gitlinks))*scanSlotLen+v4Names)
	b = append(b, scanMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(slots)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ix.table.gitlinks)))
	b = binary.LittleEndian.AppendUint32(b, ix.rawMtime)
	b = binary.LittleEndian.AppendUint32(b, uint32(v4Names))
	put := func(s *idxSlot) {
		b = binary.LittleEndian.AppendUint32(b, s.off)
		b = binary.LittleEndian.AppendUint32(b, s.size)
		b = binary.LittleEndian.AppendUint32(b, s.nameOff)
		b = binary.LittleEndian.AppendUint32(b, s.nameLen)
		b = append(b, s.stage)
	}
	for i := range slots {
		put(&slots[i])
	}
	for _, p := range ix.table.gitlinks {
		put(&slots[p])
	}
	if ix.version == 4 {
		b = append(b, ix.names...)
	}
	return b
}

var errScan = errors.New("kept scan does not fit the file")

// decodeScan takes ix's slots (read in place: slotTable), gitlinks and
// racy bound from a kept scan of ix.data. It checks the counts and the
// first and last slots; every other slot is checked when it is taken
// (keptScan). It returns where the entries end.
func (ix *Index) decodeScan(b []byte, end int) (int, error) {
	if len(b) < len(scanMagic)+16 || string(b[:len(scanMagic)]) != scanMagic {
		return 0, errScan
	}
	b = b[len(scanMagic):]
	n := int(binary.LittleEndian.Uint32(b))
	ngit := int(binary.LittleEndian.Uint32(b[4:]))
	ix.rawMtime = binary.LittleEndian.Uint32(b[8:])
	nnames := int(binary.LittleEndian.Uint32(b[12:]))
	b = b[16:]
	if n != int(binary.BigEndian.Uint32(ix.data[8:])) || uint64(n)*(idxEntryFixed+2) > uint64(end-idxHeaderLen) || ngit > n ||
		len(b) != (n+ngit)*scanSlotLen+nnames || (ix.version == 4) != (nnames > 0 || n == 0) {
		return 0, errScan
	}
	ix.names = ix.data
	if ix.version == 4 {
		ix.names = b[(n+ngit)*scanSlotLen:]
	}
	scan := b[: n*scanSlotLen : n*scanSlotLen]
	ks := &keptScan{data: ix.data, names: ix.names, version: ix.version, end: end, n: n, path: ix.path}
	ix.table = slotTable{scan: scan, kept: ks}
	pos := idxHeaderLen
	if n > 0 {
		_, ok0 := ks.check(scan, 0)
		last, ok := ks.check(scan, n-1)
		if !ok0 || !ok {
			return 0, errScan
		}
		pos = int(last.off + last.size)
	}
	ix.seq = wholeSeq(n)
	ix.table.gitlinks = make([]int, ngit)
	for k := range ix.table.gitlinks {
		g := scanSlot(b[(n+k)*scanSlotLen:])
		i := sort.Search(n, func(i int) bool { return scanSlot(scan[i*scanSlotLen:]).off >= g.off })
		if s, ok := ks.check(scan, min(i, n-1)); i == n || !ok || s != g || k > 0 && i <= ix.table.gitlinks[k-1] {
			return 0, errScan
		}
		ix.table.gitlinks[k] = i
	}
	return pos, nil
}

// keptScan checks the slots of a kept scan as they are taken, instead of
// all of them when the index is read: at 1M entries checking every slot
// took 30 ms of a 75 ms step, which takes a few slots. Each slot taken is
// checked against the file's bytes: inside the entries, right after the
// slot before it, with the stage, path and length its entry has (in
// version 4, its path as the entry's prefix length and suffix make it of
// the path before it). A damaged scan is so noticed where it is used,
// never a slice out of range, and the table becomes the walk of the file
// (walk), as if no scan had been kept, and that walk's scan is kept.
type keptScan struct {
	data, names []byte // the file; the paths (data, or in version 4 the scan's)
	version     uint32
	end         int // where the entries end at the latest (the trailer)
	n           int

	// Where the walk's scan is kept (loadShared sets them), and the file.
	v    Verifier
	name string
	fi   os.FileInfo
	path string

	once   sync.Once
	walked atomic.Bool
	mem    []idxSlot // the walk's slots, paths in wnames
	wnames []byte
	bad    error // the file did not walk either

	checked atomic.Int64 // slots checked, for the tests: a step checks few
}

// check returns slot k of scan and whether it fits the file.
func (ks *keptScan) check(scan []byte, k int) (idxSlot, bool) {
	ks.checked.Add(1)
	s := scanSlot(scan[k*scanSlotLen:])
	strip, sfx, ok := ks.fits(s)
	if !ok {
		return s, false
	}
	var prev []byte
	if k == 0 {
		if s.off != idxHeaderLen {
			return s, false
		}
	} else {
		p := scanSlot(scan[(k-1)*scanSlotLen:])
		if _, _, ok := ks.fits(p); !ok || uint64(p.off)+uint64(p.size) != uint64(s.off) {
			return s, false
		}
		prev = ks.names[p.nameOff : p.nameOff+p.nameLen]
	}
	if ks.version == 4 {
		// The path is the one before it less strip bytes, then the
		// entry's suffix (fits checked the suffix).
		if strip > uint64(len(prev)) {
			return s, false
		}
		common := len(prev) - int(strip)
		if int(s.nameLen) != common+sfx || !bytes.Equal(ks.names[s.nameOff:s.nameOff+uint32(common)], prev[:common]) {
			return s, false
		}
	}
	return s, true
}

// fits reports whether s lies inside the entries and its stage and path
// are its entry's; in version 4 it also returns the entry's prefix length
// to strip and the length of its suffix, which s's path ends with.
func (ks *keptScan) fits(s idxSlot) (strip uint64, sfx int, ok bool) {
	off, size := uint64(s.off), uint64(s.size)
	if off < idxHeaderLen || size < idxEntryFixed+2 || off+size > uint64(ks.end) || s.stage > 3 || s.nameLen == 0 ||
		uint64(s.nameOff)+uint64(s.nameLen) > uint64(len(ks.names)) {
		return 0, 0, false
	}
	e := ks.data[off : off+size]
	flags := binary.BigEndian.Uint16(e[60:])
	if uint8(flags&idxFlagStageMask>>12) != s.stage {
		return 0, 0, false
	}
	hdr := idxEntryFixed
	if flags&idxFlagExtended != 0 {
		if ks.version < 3 {
			return 0, 0, false
		}
		hdr += 2
	}
	name := ks.names[s.nameOff : s.nameOff+s.nameLen]
	if ks.version != 4 {
		n := int(flags & idxFlagNameMask)
		if n == idxFlagNameMask {
			n = bytes.IndexByte(e[hdr:], 0)
		}
		return 0, 0, n >= 0 && off+uint64(hdr) == uint64(s.nameOff) && n == len(name) && size == uint64((hdr+n+8)&^7) && e[hdr+n] == 0
	}
	if uint64(hdr)+2 > size { // the prefix length and the NUL
		return 0, 0, false
	}
	strip, vn, ok := idxReadVarint(e[hdr : size-1])
	if !ok || e[size-1] != 0 {
		return 0, 0, false
	}
	suffix := e[hdr+vn : size-1]
	if bytes.IndexByte(suffix, 0) >= 0 || len(suffix) > len(name) || !bytes.Equal(name[len(name)-len(suffix):], suffix) {
		return 0, 0, false
	}
	return strip, len(suffix), true
}

// walk makes the table the walk of the file, once: its checksum verified
// and every entry checked, as ReadIndexWith does without a kept scan, and
// keeps the walk's scan. A file that does not walk leaves the table
// damaged (slotTable.damaged): nothing read from it is written.
func (ks *keptScan) walk() {
	ks.once.Do(func() {
		w := &Index{path: ks.path, data: ks.data, maxPercent: DefaultMaxPercentChange}
		hashed := w.startHash()
		hashed <- len(w.data)
		close(hashed)
		err := w.parse()
		switch {
		case err != nil:
			ks.bad = err
		case w.link != nil || w.stripped > 0 || w.table.len() != ks.n:
			ks.bad = w.damaged("the shared index is not the one its kept scan was of")
		default:
			ks.mem, ks.wnames = w.table.mem, w.names
			if ks.v != nil {
				ks.v.Remember(ks.name, ks.fi, w.encodeScan())
			}
		}
		if ks.bad != nil {
			ks.wnames = ks.data
			if ks.v != nil {
				ks.v.Forget(ks.name)
			}
		}
		ks.walked.Store(true)
	})
}

// walkedAt is slot k after walk. Of a file that did not walk it is a slot
// that is safe to read (the first entry's bytes, n > 0 bytes of entries
// were checked to be there), never written (slotTable.damaged).
func (ks *keptScan) walkedAt(k int) idxSlot {
	if ks.bad != nil {
		return idxSlot{off: idxHeaderLen, size: idxEntryFixed + 2, nameOff: idxHeaderLen + idxEntryFixed, nameLen: 1, walked: true}
	}
	s := ks.mem[k]
	s.walked = true
	return s
}
