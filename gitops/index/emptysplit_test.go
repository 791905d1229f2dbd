package index

import (
	"fmt"
	"testing"
)

// A session that removes every entry writes a split index git reads as
// empty (a new shared index of no entries, or every shared entry
// deleted), reads it back as a new process does (a kept scan of no
// slots), and goes on adding to it.
func TestAnEmptySplitIndexIsWrittenAndReadBack(t *testing.T) {
	for _, version := range []int{2, 4} {
		for _, pct := range []int{0, 20, 100} {
			t.Run(fmt.Sprintf("v%d pct%d", version, pct), func(t *testing.T) {
				r := splitRepo(t, version)
				m := &memVerifier{scans: map[string][]byte{}}
				lock, ix := lockAndReadWith(t, r, m)
				ix.SetSplit(true, pct)
				all := ix.HasPrefix("")
				if err := ix.Update(nil, all); err != nil {
					t.Fatal(err)
				}
				if err := WriteIndex(lock, ix); err != nil {
					t.Fatal(err)
				}
				if got := r.git("ls-files", "-s"); got != "" {
					t.Fatalf("git ls-files: %q", got)
				}
				r.git("fsck", "--strict", "--no-progress")
				for k := range 2 {
					if k > 0 {
						lock.Rollback()
					}
					if l := linkOf(t, r); l != nil {
						forgetSharedPath(ix.sharedPath(l.hash))
					}
					lock, ix = lockAndReadWith(t, r, m)
					ix.SetSplit(true, pct)
					if ix.Len() != 0 {
						t.Fatalf("%d entries", ix.Len())
					}
				}
				r.write("x/new.txt", "new\n")
				if err := ix.Update([]IndexEntry{r.entry("x/new.txt")}, nil); err != nil {
					t.Fatal(err)
				}
				want := lsDebug(ix)
				if err := WriteIndex(lock, ix); err != nil {
					t.Fatal(err)
				}
				checkWithGit(t, r, want)
			})
		}
	}
}
