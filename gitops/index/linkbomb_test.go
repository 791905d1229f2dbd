package index

import (
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
)

// A link extension's bitmap holds a run of set bits in one 64-bit word, of
// any length up to four billion bits: an index of a hundred bytes whose
// bitmap says "delete every entry up to 2^32" is refused as damaged before
// its positions are listed, which took 8 bytes each (32 GB for that one;
// git stops at the first position past its shared index). Not parallel:
// the test measures the process's allocations.
func TestALinkBitmapRunPastTheSharedIndexIsRefusedUnexpanded(t *testing.T) {
	r := splitRepo(t, 2)
	l := linkOf(t, r)
	const run = 1 << 16 // 4M positions, 32 MB listed; the 30 entries are less than one word
	b := []byte("DIRC")
	b = binary.BigEndian.AppendUint32(b, 2)
	b = binary.BigEndian.AppendUint32(b, 0)
	link := append([]byte(nil), l.hash[:]...)
	link = binary.BigEndian.AppendUint32(link, 1<<32-1) // bits
	link = binary.BigEndian.AppendUint32(link, 1)       // words
	link = binary.BigEndian.AppendUint64(link, run<<1|1)
	link = binary.BigEndian.AppendUint32(link, 0) // the last marker
	link = ewahAppend(link, nil)                  // no replacements
	b = idxAppendExt(b, "link", link)
	sum := sha1.Sum(b)
	b = append(b, sum[:]...)
	if err := os.WriteFile(r.indexPath(), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadIndex(r.indexPath())
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("reading a %d-byte index allocated %d MB", len(b), got>>20)
	}
	var ue *UnsupportedIndexError
	if !errors.As(err, &ue) || !strings.Contains(ue.Reason, "damaged") {
		t.Fatalf("ReadIndex = %v, want the index refused as damaged", err)
	}
}
