package index

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The session test at 3,000 entries, a dozen blocks of a kept scan: runs
// split and joined far from each other, new shared indexes, reads by new
// processes from kept scans whose blocks are checked as they are taken.
// git ls-files --stage must be the model after every write.
func TestALargeSessionIsWhatGitReads(t *testing.T) {
	for _, version := range []int{2, 4} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			t.Parallel()
			const n = 3000
			r := benchRepo(t, n, version)
			r.git("update-index", "--split-index")
			rng := rand.New(rand.NewPCG(uint64(version), 11))
			m := &memVerifier{scans: map[string][]byte{}}
			lock, ix := lockAndReadWith(t, r, m)
			defer func() { lock.Rollback() }()
			ix.SetSplit(true, 5)
			model := map[string]IndexEntry{}
			for e := range ix.All() {
				model[e.Path] = e
			}
			path := func(i int) string {
				return fmt.Sprintf("src/pkg%03d/sub%02d/file_%05d.go", i/1000, i/100%10, i)
			}
			for round := range 25 {
				// A blob of the round's, in the object store (git fsck).
				r.write("blob.txt", fmt.Sprintf("round %d\n", round))
				var blob [20]byte
				hex.Decode(blob[:], []byte(strings.TrimSpace(r.git("hash-object", "-w", "blob.txt"))))
				var set []IndexEntry
				var remove []string
				for range 1 + rng.IntN(30) {
					i := rng.IntN(n + 200) // some new paths, between and after
					p := path(i)
					if rng.IntN(3) == 0 {
						remove = append(remove, p)
						continue
					}
					if slices.ContainsFunc(set, func(e IndexEntry) bool { return e.Path == p }) {
						continue
					}
					e := IndexEntry{Path: p, Mode: 0o100644, Hash: blob, Stat: Stat{Size: uint32(i + 1), MtimeSec: 1}}
					set = append(set, e)
				}
				for _, p := range remove {
					delete(model, p)
				}
				for _, e := range set {
					model[e.Path] = e
				}
				if err := ix.Update(set, remove); err != nil {
					t.Fatal(err)
				}
				if err := WriteIndex(lock, ix); err != nil {
					t.Fatal(err)
				}
				var want strings.Builder
				for _, p := range slices.Sorted(func(yield func(string) bool) {
					for p := range model {
						if !yield(p) {
							return
						}
					}
				}) {
					fmt.Fprintf(&want, "100644 %x 0\t%s\n", model[p].Hash, p)
				}
				if got := r.git("ls-files", "--stage"); got != want.String() {
					t.Fatalf("round %d: git ls-files --stage differs from the model", round)
				}
				var err error
				if lock, err = Lock(r.indexPath()); err != nil {
					t.Fatal(err)
				}
				if rng.IntN(3) == 0 {
					if l := linkOf(t, r); l != nil {
						forgetSharedPath(ix.sharedPath(l.hash))
					}
					if ix, err = ReadIndexWith(r.indexPath(), m); err != nil {
						t.Fatal(err)
					}
					ix.SetSplit(true, 5)
				}
			}
			if m.used == 0 {
				t.Error("no read took a kept scan: the test proves less than it says")
			}
			r.git("fsck", "--strict", "--no-progress")
		})
	}
}
