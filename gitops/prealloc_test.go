package gitops_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// A lock's file is renamed over its target, and ext4 allocates a renamed
// file's delayed blocks and starts writing them at that rename
// (auto_da_alloc: 60-70 µs of each index and ref a step writes). The lock
// file is written into blocks reserved for it: a spare's, which Fill
// reserves between calls, and past them, ones reserved as it is written.
// What the lock holds is what was written, whatever its size.
func TestLockFilesAreWrittenIntoReservedBlocks(t *testing.T) {
	g, r, p := privateRepo(t)
	still := gittest.DelayingAllocation(t, filepath.Join(g.Dir, ".git"))
	lockFile := filepath.Join(g.Dir, ".git", "index.lock")
	for _, withSpares := range []bool{false, true} {
		if withSpares {
			s := p.Spares()
			r.UseSpares(s)
			fillTo(t, s, g.Dir, 2)
		}
		for _, size := range []int{41, 4096, 70000} {
			l, err := r.LockIndex(p)
			if err != nil {
				t.Fatal(err)
			}
			want := bytes.Repeat([]byte("index bytes\n"), size/12+1)[:size]
			for rest := want; len(rest) > 0; {
				n := min(len(rest), 1000) // written in pieces, as an index is
				if _, err := l.Write(rest[:n]); err != nil {
					t.Fatal(err)
				}
				rest = rest[n:]
			}
			if delayed, _ := gittest.DelayedAllocation(t, lockFile); delayed {
				t.Errorf("spares %v, %d bytes: the lock file waits for its blocks: the rename over the index would allocate them", withSpares, size)
			}
			if got, _ := os.ReadFile(lockFile); !bytes.Equal(got, want) {
				t.Errorf("spares %v, %d bytes: the lock file holds %d bytes, not those written", withSpares, size, len(got))
			}
			if fi, _ := os.Stat(lockFile); fi.Size() != int64(size) {
				t.Errorf("spares %v: the lock file's size is %d, want %d", withSpares, fi.Size(), size)
			}
			l.Rollback()
		}
	}
	still()
	g.AssertClean()
	g.Fsck()
}
