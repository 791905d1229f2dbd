package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
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
