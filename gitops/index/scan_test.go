package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// memVerifier is a Verifier in memory; used counts the kept scans handed out.
type memVerifier struct {
	scans map[string][]byte
	used  int
}

func (m *memVerifier) Verified(name string, fi os.FileInfo) ([]byte, func()) {
	if s, ok := m.scans[name]; ok {
		m.used++
		return s, func() {}
	}
	return nil, nil
}

func (m *memVerifier) Remember(name string, fi os.FileInfo, scan []byte) { m.scans[name] = scan }

func (m *memVerifier) Forget(name string) { delete(m.scans, name) }

// forgetShared empties this process's cache of parsed shared indexes, as a
// new process starts.
func forgetShared() {
	sharedIndexes.Lock()
	sharedIndexes.m = nil
	sharedIndexes.Unlock()
}

// A shared index read from its kept scan is the index git reads, gitlinks
// and racy bound included, in versions 2, 3 and 4; a kept scan that does
// not fit the file is walked past, and the walk's scan kept instead.
func TestSplitIndexReadFromAKeptScan(t *testing.T) {
	for _, version := range []int{2, 3, 4} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			r := splitRepo(t, version)
			head := strings.TrimSpace(r.git("rev-parse", "HEAD"))
			r.git("update-index", "--add", "--cacheinfo", "160000,"+head+",d1/sub")
			r.git("update-index", "--split-index") // the gitlink into the shared index
			userChanges(r)
			want := r.gitLsDebug()
			m := &memVerifier{scans: map[string][]byte{}}
			read := func(what string) *Index {
				t.Helper()
				// Not t.Parallel: the cache is the process's.
				forgetShared()
				ix, err := ReadIndexWith(r.indexPath(), m)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if got := lsDebug(ix); got != want {
					t.Fatalf("%s: entries read:\n%s\ngit ls-files --stage --debug:\n%s", what, got, want)
				}
				if got := ix.Gitlinks(); !slices.Equal(got, []string{"d1/sub"}) {
					t.Errorf("%s: gitlinks %q", what, got)
				}
				return ix
			}
			walked := read("walked")
			if len(m.scans) != 1 || m.used != 0 {
				t.Fatalf("after a walk: %d scans kept, %d used", len(m.scans), m.used)
			}
			var name string
			var kept []byte
			for name, kept = range m.scans {
			}
			fromScan := read("from the kept scan")
			if m.used != 1 {
				t.Fatalf("the kept scan was not used (%d)", m.used)
			}
			if fromScan.rawMtime != walked.rawMtime {
				t.Errorf("racy bound from the scan %d, walked %d", fromScan.rawMtime, walked.rawMtime)
			}

			n := len(scanMagic) + 16
			damage := map[string]func(b []byte) []byte{
				"truncated":  func(b []byte) []byte { return b[:len(b)-1] },
				"not a scan": func(b []byte) []byte { b[0] = 'X'; return b },
				"an offset moved": func(b []byte) []byte {
					binary.LittleEndian.PutUint32(b[n+scanSlotLen:], 8+binary.LittleEndian.Uint32(b[n+scanSlotLen:]))
					return b
				},
				"a path outside": func(b []byte) []byte { binary.LittleEndian.PutUint32(b[n+12:], 1<<30); return b },
				"a count too large": func(b []byte) []byte {
					binary.LittleEndian.PutUint32(b[len(scanMagic):], 1+binary.LittleEndian.Uint32(b[len(scanMagic):]))
					return b
				},
				"a stage of 7": func(b []byte) []byte { b[n+16] = 7; return b },
			}
			for what, f := range damage {
				m.scans[name] = f(bytes.Clone(kept))
				read("with a scan " + what)
				if !bytes.Equal(m.scans[name], kept) {
					t.Errorf("with a scan %s: the walk did not keep its own scan", what)
				}
			}
		})
	}
}

// A step on a split index read from its kept scan checks the slots it
// reads, not every slot: at 20,000 entries, reading the index, looking up
// and changing an entry and writing it split check a few dozen (issue
// #20: nothing in a step proportional to the repository; checking every
// slot at the read was 30 ms of a 75 ms step at 1M entries). What it
// wrote is what git reads.
func TestAStepChecksOnlyTheSlotsItReads(t *testing.T) {
	const n = 20000
	for _, version := range []int{2, 4} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			r := benchRepo(t, n, version)
			path := r.indexPath()
			r.git("update-index", "--split-index")
			m := &memVerifier{scans: map[string][]byte{}}
			forgetShared()
			if _, err := ReadIndexWith(path, m); err != nil {
				t.Fatal(err)
			}
			kept := maps.Clone(m.scans)

			const p = "src/pkg010/sub00/file_10000.go"
			ks, e := keptStep(t, path, m, p)
			if m.used != 1 {
				t.Fatalf("the kept scan was used %d times, want once", m.used)
			}
			t.Logf("%d slots checked", ks.checked.Load())
			if c := ks.checked.Load(); c > 200 {
				t.Errorf("%d slots of %d checked for one step", c, n)
			}
			if !maps.EqualFunc(m.scans, kept, bytes.Equal) {
				t.Error("the kept scan was replaced: the step walked the shared index")
			}
			if got, want := r.git("ls-files", "-s", p), fmt.Sprintf("100644 %x 0\t%s\n", e.Hash, p); got != want {
				t.Errorf("git ls-files -s: %q, want %q", got, want)
			}
			if got := strings.Count(r.git("ls-files", "-s"), "\n"); got != n {
				t.Errorf("git reads %d entries, want %d", got, n)
			}
		})
	}
}

// A slot of a kept scan that does not fit the file is noticed where it is
// read, and the table becomes the walk of the file (TestSplitIndexReadFromAKeptScan).
// When the shared index itself no longer walks (its bytes damaged in place
// after it was verified: same name, inode and size), the step's write is
// refused and nothing changes; the next read refuses the index as git does.
func TestADamagedKeptScanAndSharedIndexRefuseTheWrite(t *testing.T) {
	r := splitRepo(t, 2)
	m := &memVerifier{scans: map[string][]byte{}}
	forgetShared()
	if _, err := ReadIndexWith(r.indexPath(), m); err != nil {
		t.Fatal(err)
	}
	var name string
	var scan []byte
	for name, scan = range m.scans {
	}
	// Slot 5 of the scan moved by 8 bytes, and entry 5 of the shared
	// index damaged (a byte of its object name).
	h := len(scanMagic) + 16 + 5*scanSlotLen
	off := binary.LittleEndian.Uint32(scan[h:])
	binary.LittleEndian.PutUint32(scan[h:], off+8)
	m.scans[name] = resealScan(scan) // its checksums say nothing: the slot is found by its check
	shared := filepath.Join(r.dir, ".git", name)
	f, err := os.OpenFile(shared, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], int64(off)+45); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xff
	if _, err := f.WriteAt(b[:], int64(off)+45); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before := snapshotGitDir(t, r)

	forgetShared()
	lock, err := Lock(r.indexPath())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := ReadIndexWith(r.indexPath(), m)
	if err != nil {
		lock.Rollback()
		t.Fatalf("read with a scan damaged past its first and last slot: %v", err)
	}
	if m.used != 1 {
		lock.Rollback()
		t.Fatalf("the kept scan was not used (%d)", m.used)
	}
	if err := ix.Update([]IndexEntry{{Path: "d1/new.txt", Mode: 0o100644, Stat: Stat{Size: 1}}}, nil); err != nil {
		lock.Rollback()
		t.Fatal(err)
	}
	lsDebug(ix) // every slot read: slot 5 does not fit, the walk finds the damage
	err = WriteIndex(lock, ix)
	var ue *UnsupportedIndexError
	if !errors.As(err, &ue) || !strings.Contains(ue.Reason, "checksum mismatch") {
		t.Fatalf("write with a damaged shared index: %v", err)
	}
	if after := snapshotGitDir(t, r); !maps.Equal(before, after) {
		t.Errorf("the refused write changed the git dir:\nbefore %v\nafter  %v", before, after)
	}
	if _, err := ReadIndexWith(r.indexPath(), m); !errors.As(err, &ue) {
		t.Errorf("the next read of the damaged shared index: %v", err)
	}
}

// A crafted kept scan of a version-4 shared index, whose slot gives an
// entry with extended flags no room for its prefix length and NUL, is a
// slot that does not fit, not a slice out of range.
func TestAKeptScanSlotTooShortForItsExtendedFlagsDoesNotFit(t *testing.T) {
	data := make([]byte, idxHeaderLen+128+idxHashLen)
	copy(data, "DIRC")
	binary.BigEndian.PutUint32(data[4:], 4)
	binary.BigEndian.PutUint32(data[8:], 1)
	binary.BigEndian.PutUint16(data[idxHeaderLen+60:], idxFlagExtended|1)
	ks := &keptScan{data: data, names: []byte("a"), version: 4, end: len(data) - idxHashLen, n: 1}
	for _, size := range []uint32{64, 65} {
		if _, _, ok := ks.fits(idxSlot{off: idxHeaderLen, size: size, nameLen: 1}); ok {
			t.Errorf("a slot of %d bytes fits an extended version-4 entry", size)
		}
	}
}

// The step that splits an index keeps the entries it just wrote (their
// mtime is the split's second) out of the new shared index: in it they
// would be racily clean for every write in that second, and each such
// write, in a new process, looked at every entry's mtime (issue #20's
// benchmark: a one-step apply at 100k entries 40 ms instead of 26, 50
// steps in one process 759 ms instead of 295). They stay in the small file,
// which git reads as new entries.
func TestASplitLeavesTheEntriesItJustWroteInTheSmallFile(t *testing.T) {
	const n = 20000
	r := benchRepo(t, n, 2)
	path := r.indexPath()
	lock, ix := lockAndRead(t, r)
	defer lock.Rollback() // after WriteIndex's commit, nothing
	e := changeEntry(t, ix, "src/pkg010/sub00/file_10000.go", Stat{MtimeSec: uint32(time.Now().Unix()), Size: 7})
	ix.SetSplit(true, DefaultMaxPercentChange)
	if err := WriteIndex(lock, ix); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(r.git("ls-files", "-s"), "\n"); got != n {
		t.Fatalf("git reads %d entries, want %d", got, n)
	}

	// The next process, in the same second, with the kept scan.
	m := &memVerifier{scans: map[string][]byte{}}
	forgetShared()
	if _, err := ReadIndexWith(path, m); err != nil {
		t.Fatal(err)
	}
	ks, e2 := keptStep(t, path, m, "src/pkg003/sub00/file_03000.go")
	if c := ks.checked.Load(); c > 200 {
		t.Errorf("%d slots of %d checked by the step after the split", c, n)
	}
	for _, x := range []IndexEntry{e, e2} {
		if got, want := r.git("ls-files", "-s", x.Path), fmt.Sprintf("100644 %x 0\t%s\n", x.Hash, x.Path); got != want {
			t.Errorf("git ls-files -s: %q, want %q", got, want)
		}
	}
}

// keptStep is one step of a new process on the index at path: read with
// m's kept scan (the test fails if it was not used), the entry p given
// another object name, written back. It returns the scan's checks and
// the entry written.
func keptStep(t *testing.T, path string, m *memVerifier, p string) (*keptScan, IndexEntry) {
	t.Helper()
	forgetShared()
	lock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback() // after WriteIndex's commit, nothing
	ix, err := ReadIndexWith(path, m)
	if err != nil {
		t.Fatal(err)
	}
	if ix.table.kept == nil {
		t.Fatal("the index was not read from its kept scan")
	}
	e := changeEntry(t, ix, p, Stat{})
	if err := WriteIndex(lock, ix); err != nil {
		t.Fatal(err)
	}
	return ix.table.kept, e
}
