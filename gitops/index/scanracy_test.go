package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"
)

// The kept scan's racy bound (the newest mtime of the shared index's
// entries) decides whether a write looks at the raw entries for racily
// clean ones at all (racyRawFree). One damaged lower than the entries'
// (a bit of the scan's header) must not let a racily clean entry be
// written unsmudged: git would then take a changed file for clean.
func TestAKeptScanWithADamagedRacyBoundStillSmudges(t *testing.T) {
	for _, version := range []int{2, 4} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			r := splitRepo(t, version)
			racyChange(t, r, "d1/f04.txt", "FILE 4\n")
			m := &memVerifier{scans: map[string][]byte{}}
			shared := filepath.Join(r.dir, ".git", fmt.Sprintf("sharedindex.%x", linkOf(t, r).hash))
			forgetSharedPath(shared)
			if _, err := ReadIndexWith(r.indexPath(), m); err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(shared)
			scan := bytes.Clone(m.scans[name])
			binary.LittleEndian.PutUint32(scan[len(scanMagic)+8:], 1) // the racy bound
			m.scans[name] = scan
			forgetSharedPath(shared)
			lock, ix := lockAndReadWith(t, r, m)
			if m.used != 1 {
				lock.Rollback()
				t.Fatalf("the kept scan was not used (%d)", m.used)
			}
			r.write("one.txt", "one")
			if err := ix.Update([]IndexEntry{r.entry("one.txt")}, nil); err != nil {
				lock.Rollback()
				t.Fatal(err)
			}
			if err := WriteIndex(lock, ix); err != nil {
				if got := r.git("diff", "--name-only"); got != "d1/f04.txt\n" {
					t.Fatalf("a refused write: git diff --name-only = %q, want d1/f04.txt modified", got)
				}
				return
			}
			if got := r.git("diff", "--name-only"); got != "d1/f04.txt\n" {
				t.Fatalf("git diff --name-only = %q, want d1/f04.txt modified", got)
			}
		})
	}
}

// lockAndReadWith is lockAndRead with a Verifier.
func lockAndReadWith(t *testing.T, r *gitRepo, v Verifier) (*testLock, *Index) {
	t.Helper()
	lock, err := Lock(r.indexPath())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := ReadIndexWith(r.indexPath(), v)
	if err != nil {
		lock.Rollback()
		t.Fatal(err)
	}
	return lock, ix
}
