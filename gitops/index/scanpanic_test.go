package index

import (
	"encoding/binary"
	"testing"
)

// A slot of a version-4 kept scan whose length is the least an entry
// takes (64 bytes) at an entry with extended flags (66 bytes of header
// and flags): the checks of the slot are an error, the scan a fallback,
// never a slice out of range.
func TestAKeptScanSlotTooShortForAnExtendedEntryIsWalkedPast(t *testing.T) {
	data := scanMutateFiles(t)[2] // version 4, skip-worktree entries
	ix, err := parseIndex("index", data, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	k := -1
	for i := range ix.table.mem {
		s := ix.table.mem[i]
		if binary.BigEndian.Uint16(data[s.off+60:])&idxFlagExtended != 0 {
			k = i
			break
		}
	}
	if k < 0 {
		t.Fatal("no extended entry")
	}
	scan := ix.encodeScan()
	p := scan[len(scanMagic)+16+k*scanSlotLen:]
	binary.LittleEndian.PutUint32(p[4:], idxEntryFixed+2)
	want := lsDebug(ix)
	got := &Index{path: "index", data: data, trusted: true, maxPercent: DefaultMaxPercentChange}
	done := make(chan struct{})
	close(done)
	got.hashDone = done
	if err := got.parseWith(scan); err != nil {
		return // refused whole: a fallback too
	}
	if s := lsDebug(got); s != want {
		t.Fatalf("read:\n%s\nwant:\n%s", s, want)
	}
	if !got.table.kept.walked.Load() {
		t.Error("the slot that does not fit was not walked past")
	}
}
