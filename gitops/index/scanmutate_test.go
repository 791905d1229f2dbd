package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// scanMutateFiles are indexes made in memory for FuzzKeptScanMutations:
// every version, conflict stages, gitlinks, intent-to-add and
// skip-worktree entries, a path of 4095 bytes or more (version 2's
// "0xfff": the NUL ends it) and paths sharing long prefixes (version 4).
func scanMutateFiles(t testing.TB) [][]byte {
	var out [][]byte
	for _, v := range []uint32{2, 3, 4} {
		ix := &Index{path: "index", version: v, maxPercent: DefaultMaxPercentChange}
		var set []IndexEntry
		for i := range 40 {
			e := IndexEntry{Path: fmt.Sprintf("d%d/sub%d/f%03d.txt", i%4, i%3, i), Mode: 0o100644,
				Stat: Stat{MtimeSec: uint32(1000 + i), Size: uint32(i + 1)}}
			e.Hash[0] = byte(i)
			switch {
			case i%9 == 0:
				e.Mode = idxModeGitlink
			case v >= 3 && i%7 == 0:
				e.SkipWorktree = true
			case v >= 3 && i%11 == 0:
				e.IntentToAdd = true
			}
			set = append(set, e)
		}
		set = append(set, IndexEntry{Path: "long/" + strings.Repeat("n", 4100), Mode: 0o100644, Stat: Stat{Size: 1}})
		if err := ix.Update(set, nil); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := ix.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		// Conflict stages, which Update does not make: the entries of
		// "d1/sub1/f013.txt" again at stages 1 and 3, spliced in by hand.
		b := buf.Bytes()
		whole, err := parseIndex("index", b, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var entries []IndexEntry
		for e := range whole.All() {
			if e.Path == "d1/sub1/f013.txt" {
				for _, st := range []int{1, 3} {
					c := e
					c.Stage = st
					entries = append(entries, c)
				}
				continue
			}
			entries = append(entries, e)
		}
		var d []byte
		d = append(d, "DIRC"...)
		d = binary.BigEndian.AppendUint32(d, v)
		d = binary.BigEndian.AppendUint32(d, uint32(len(entries)))
		var prev []byte
		for k := range entries {
			d = idxAppendEntry(d, &entries[k], v, prev)
			prev = []byte(entries[k].Path)
		}
		d = append(d, make([]byte, 20)...)
		d = withSum(d)
		if _, err := parseIndex("index", d, 0, 0); err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		out = append(out, d)
	}
	return out
}

// FuzzKeptScanMutations: a kept scan of a real index, changed the way
// damage and a crafted file change it, its checksums resealed or not
// (the high bit of which; see resealScan) (a field of a slot moved, one
// slot copied over another, a run of slots shifted, a count, a byte of
// the version-4 paths; and a byte of the shared index itself), is either refused by decodeScan or read: then
// lookups, Gitlinks, Update, WriteTo, the split diff and the racy settle
// neither panic nor write an index that does not read back. A raw-bytes
// fuzzer (FuzzDecodeScan) rarely gets past the scan's header checks.
func FuzzKeptScanMutations(f *testing.F) {
	files := scanMutateFiles(f)
	var scans [][]byte
	for _, d := range files {
		ix, err := parseIndex("index", d, 0, 0)
		if err != nil {
			f.Fatal(err)
		}
		scans = append(scans, ix.encodeScan())
	}
	for k := range 2 * len(files) {
		w := k%len(files) | k/len(files)<<7 // with the high bit, resealed
		f.Add(uint8(w), []byte{})
		f.Add(uint8(w), []byte{3, 5, 10, 0}) // slots 5..14 shifted by one
		f.Add(uint8(w), []byte{2, 7, 8, 0})  // slot 8 copied over slot 7
		f.Add(uint8(w), []byte{1, 9, 2, 8})  // slot 9's path offset moved by 8
		f.Add(uint8(w), []byte{5, 3, 1, 0x20})
		f.Add(uint8(w), []byte{4, 1, 0, 1})
		f.Add(uint8(w), []byte{3, 5, 10, 0, 7, 0, 200, 0x40}) // shifted, and an entry's flags damaged
	}
	f.Fuzz(func(t *testing.T, which uint8, ops []byte) {
		w := int(which&0x7f) % len(files)
		data, scan := files[w], bytes.Clone(scans[w])
		h := len(scanMagic) + 16
		n := int(binary.LittleEndian.Uint32(scan[len(scanMagic):]))
		ngit := int(binary.LittleEndian.Uint32(scan[len(scanMagic)+4:]))
		slots := n + ngit
		slot := func(k int) []byte { return scan[h+k%slots*scanSlotLen:][:scanSlotLen] }
		for len(ops) >= 4 && len(scan) >= h+slots*scanSlotLen {
			op, a, b, c := ops[0], int(ops[1]), int(ops[2]), ops[3]
			ops = ops[4:]
			switch op % 8 {
			case 0: // a field of slot a takes slot b's
				fld := int(c) % 5 * 4
				copy(slot(a)[fld:min(fld+4, scanSlotLen)], slot(b)[fld:min(fld+4, scanSlotLen)])
			case 1: // a field of slot a moves by a small amount
				fld := b % 5 * 4
				if fld == 16 {
					slot(a)[16] += c
					break
				}
				v := binary.LittleEndian.Uint32(slot(a)[fld:])
				binary.LittleEndian.PutUint32(slot(a)[fld:], v+uint32(int32(int8(c))))
			case 2: // slot b copied over slot a
				copy(slot(a), slot(b))
			case 3: // slots a..a+b hold the next slot's
				for k := a; k < a+b && k+1 < slots; k++ {
					copy(slot(k), slot(k+1))
				}
			case 4: // a count of the header moves
				p := scan[len(scanMagic)+a%4*4:]
				binary.LittleEndian.PutUint32(p, binary.LittleEndian.Uint32(p)+uint32(int32(int8(c))))
			case 5: // a byte of the version-4 paths changes
				if names := scan[h+slots*scanSlotLen:]; len(names) > 0 {
					names[(a<<8|b)%len(names)] ^= c
				}
			case 6: // the scan is cut
				scan = scan[:max(len(scan)-(a<<8|b), 0)]
			case 7: // the shared index is damaged in place after it was verified
				data = bytes.Clone(data)
				data[(a<<8|b)%len(data)] ^= c
			}
		}
		// A scan damaged before it was sealed (or crafted): its checksums
		// match, only the checks of its slots against the file can tell.
		if which&0x80 != 0 && len(scan) >= h {
			le := func(i int) uint64 { return uint64(binary.LittleEndian.Uint32(scan[len(scanMagic)+4*i:])) }
			if uint64(h)+(le(0)+le(1))*scanSlotLen+le(3) <= uint64(len(scan)) {
				scan = resealScan(scan)
			}
		}
		// The shared index's own bytes are trusted (verified once): damage
		// to them in place need not be noticed, only never be a panic.
		scanKeptRun(t, data, scan, &data[0] == &files[w][0])
	})
}

// scanKeptRun is what a step does with a shared index read from scan.
// Unless intact, what it writes need not read back.
func scanKeptRun(t *testing.T, data, scan []byte, intact bool) {
	ix := readKept(t, data, scan)
	if ix == nil {
		return
	}
	ix.base = &idxBase{}
	ix.mtimeSec = 1500 // some raw entries are racy
	set := []IndexEntry{{Path: "d1/sub1/f013.txt", Mode: 0o100644, Stat: Stat{Size: 3}},
		{Path: "d2", Mode: 0o100644, Stat: Stat{Size: 3}}, {Path: "a-first", Mode: idxModeGitlink}}
	var remove []string
	if ix.Len() > 3 {
		s := ix.slot(3)
		remove = append(remove, string(ix.name(&s)))
	}
	if err := ix.Update(set, remove); err != nil {
		return
	}
	ix.Gitlinks()
	ix.splitDiff()
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		if intact {
			t.Fatalf("WriteTo failed on an index that is not damaged: %v", err)
		}
		return
	}
	if back, err := parseIndex("index", buf.Bytes(), 0, 0); intact && err != nil {
		t.Fatalf("reading what WriteTo wrote from an index read with a kept scan: %v", err)
	} else if intact && lsDebug(back) != lsDebug(ix) {
		t.Fatalf("written:\n%s\nheld:\n%s", lsDebug(back), lsDebug(ix))
	}
	ix.settleRacy()
	if err := ix.Update([]IndexEntry{{Path: "zz/last", Mode: 0o100644}}, []string{"d0"}); err == nil {
		ix.splitDiff()
		ix.Gitlinks()
	}
}
