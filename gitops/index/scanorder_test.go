package index

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// A kept scan of a version-4 shared index holds the paths themselves (the
// file stores them relative to each other). One whose paths are out of
// git's order does not fit any index file: it is walked past, as every
// other scan that does not fit. Taken, it answered lookups with another
// entry's path, and a write re-encoding an entry after a splice (version
// 4 stores each path relative to the previous one) wrote an index git
// rejects ("unordered stage entries" / "out of order").
func TestAKeptScanWithPathsOutOfOrderIsWalkedPast(t *testing.T) {
	r := splitRepo(t, 4)
	want := r.gitLsDebug()
	m := &memVerifier{scans: map[string][]byte{}}
	forgetShared()
	if _, err := ReadIndexWith(r.indexPath(), m); err != nil {
		t.Fatal(err)
	}
	if len(m.scans) != 1 {
		t.Fatalf("%d scans kept", len(m.scans))
	}
	var name string
	var kept []byte
	for name, kept = range m.scans {
	}
	// Swap the first two paths (of the same length) in the kept paths.
	b := bytes.Clone(kept)
	h := len(scanMagic)
	n := int(binary.LittleEndian.Uint32(b[h:]))
	ngit := int(binary.LittleEndian.Uint32(b[h+4:]))
	names := b[h+16+(n+ngit)*scanSlotLen:]
	slot := func(k int) (off, l int) {
		p := b[h+16+k*scanSlotLen:]
		return int(binary.LittleEndian.Uint32(p[8:])), int(binary.LittleEndian.Uint32(p[12:]))
	}
	o0, l0 := slot(0)
	o1, l1 := slot(1)
	if l0 != l1 || bytes.Equal(names[o0:o0+l0], names[o1:o1+l1]) {
		t.Fatalf("the first two paths %q and %q: the test needs two of the same length", names[o0:o0+l0], names[o1:o1+l1])
	}
	first := bytes.Clone(names[o0 : o0+l0])
	copy(names[o0:], names[o1:o1+l1])
	copy(names[o1:], first)
	m.scans[name] = b

	forgetShared()
	ix, err := ReadIndexWith(r.indexPath(), m)
	if err != nil {
		t.Fatal(err)
	}
	if got := lsDebug(ix); got != want {
		t.Fatalf("read with paths out of order in the kept scan:\n%s\ngit ls-files --stage --debug:\n%s", got, want)
	}
	if !bytes.Equal(m.scans[name], kept) {
		t.Error("the walk did not keep its own scan")
	}
}
