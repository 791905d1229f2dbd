package index

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"testing"
)

// FuzzDecodeScan: whatever the kept scan, a shared index read with it
// either falls back (decodeScan fails) or gives an index whose lookups,
// update and writes, whole and split, neither panic nor write an index
// that does not read back. The seeds are the scans of testdata's indexes.
func FuzzDecodeScan(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "index", "v*.index"))
	var files [][]byte
	for _, p := range seeds {
		b := readFile(f, p)
		ix, err := parseIndex("index", b, 0, 0)
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, b)
		f.Add(uint8(len(files)-1), ix.encodeScan())
		f.Add(uint8(len(files)-1)|0x80, ix.encodeScan())
	}
	f.Fuzz(func(t *testing.T, which uint8, scan []byte) {
		data := files[int(which&0x7f)%len(files)]
		// With the high bit the scan's checksums are made right, so that
		// its bytes reach the checks of the slots (resealScan).
		if h := len(scanMagic) + 16; which&0x80 != 0 && len(scan) >= h {
			le := func(i int) uint64 { return uint64(binary.LittleEndian.Uint32(scan[len(scanMagic)+4*i:])) }
			if uint64(h)+(le(0)+le(1))*scanSlotLen+le(3) <= uint64(len(scan)) {
				scan = resealScan(scan)
			}
		}
		ix := readKept(t, data, scan)
		if ix == nil {
			return
		}
		// The index as a session has it: split against this shared one.
		ix.base = &idxBase{}
		ix.mtimeSec = 1
		set := []IndexEntry{{Path: "fuzz/new", Mode: 0o100644, Stat: Stat{Size: 3}}}
		var remove []string
		if ix.Len() > 1 {
			s := ix.slot(1)
			remove = append(remove, string(ix.name(&s)))
		}
		if err := ix.Update(set, remove); err != nil {
			return
		}
		var buf bytes.Buffer
		if _, err := ix.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if _, err := parseIndex("index", buf.Bytes(), 0, 0); err != nil {
			t.Fatalf("reading what WriteTo wrote from an index read with a kept scan: %v", err)
		}
		ix.splitDiff()
	})
}
