package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// syncVerifier is memVerifier for Indexes of several goroutines.
type syncVerifier struct {
	mu sync.Mutex
	m  memVerifier
}

func (v *syncVerifier) Verified(name string, fi os.FileInfo) ([]byte, func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.m.Verified(name, fi)
}

func (v *syncVerifier) Remember(name string, fi os.FileInfo, scan []byte) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.m.Remember(name, fi, scan)
}

func (v *syncVerifier) Forget(name string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.m.Forget(name)
}

// Two Indexes of one process share the shared index they link to
// (loadShared's cache), and with it its kept scan. When a slot of that
// scan does not fit, both may find it at once: the walk happens once,
// and each goes on with slots taken before it (from the scan) and after
// it (from the walk) in one operation, reading git's entries. Run with
// -race.
func TestTwoIndexesWalkTheirSharedKeptScanAtOnce(t *testing.T) {
	for _, version := range []int{2, 4} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			r := splitRepo(t, version)
			head := strings.TrimSpace(r.git("rev-parse", "HEAD"))
			r.git("update-index", "--add", "--cacheinfo", "160000,"+head+",d2/sub")
			r.git("update-index", "--split-index")
			userChanges(r)
			want := r.gitLsDebug()
			v := &syncVerifier{m: memVerifier{scans: map[string][]byte{}}}
			shared := filepath.Join(r.dir, ".git", fmt.Sprintf("sharedindex.%x", linkOf(t, r).hash))
			forgetSharedPath(shared)
			if _, err := ReadIndexWith(r.indexPath(), v); err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(shared)
			scan := bytes.Clone(v.m.scans[name])
			// The slot of the middle entry moved: it does not fit.
			n := int(binary.LittleEndian.Uint32(scan[len(scanMagic):]))
			h := len(scanMagic) + 16 + n/2*scanSlotLen
			binary.LittleEndian.PutUint32(scan[h:], binary.LittleEndian.Uint32(scan[h:])+8)
			v.m.scans[name] = resealScan(scan)
			// What each must find: the same step on the index walked.
			forgetSharedPath(shared)
			truth, err := ReadIndexWith(r.indexPath(), nil)
			if err != nil {
				t.Fatal(err)
			}
			e, _ := truth.Entry("d0/f00.txt")
			var diffs []string
			for k := range 2 {
				e.Hash[0] ^= byte(k + 1)
				if err := truth.Update([]IndexEntry{e}, []string{"d2/f29.txt"}); err != nil {
					t.Fatal(err)
				}
				e.Hash[0] ^= byte(k + 1)
				del, repl, replaced, added := truth.splitDiff()
				diffs = append(diffs, fmt.Sprint(del, repl, replaced, added))
			}
			forgetSharedPath(shared)
			var ixs []*Index
			for range 2 {
				ix, err := ReadIndexWith(r.indexPath(), v)
				if err != nil {
					t.Fatal(err)
				}
				ixs = append(ixs, ix)
			}
			if ixs[0].table.kept == nil || ixs[0].table.kept != ixs[1].table.kept {
				t.Fatal("the two Indexes do not share one kept scan")
			}
			var wg sync.WaitGroup
			errs := make([]string, len(ixs))
			for k, ix := range ixs {
				wg.Go(func() {
					// Slots before the bad one, from the scan.
					e, ok := ix.Entry("d0/f00.txt")
					if got := lsDebug(ix); got != want {
						errs[k] = fmt.Sprintf("read:\n%s\nwant:\n%s", got, want)
						return
					}
					if !ok {
						errs[k] = "d0/f00.txt not found"
						return
					}
					if got := ix.Gitlinks(); !slices.Equal(got, []string{"d2/sub"}) {
						errs[k] = fmt.Sprintf("gitlinks %q", got)
						return
					}
					e.Hash[0] ^= byte(k + 1)
					if err := ix.Update([]IndexEntry{e}, []string{"d2/f29.txt"}); err != nil {
						errs[k] = err.Error()
						return
					}
					del, repl, replaced, added := ix.splitDiff()
					if got := fmt.Sprint(del, repl, replaced, added); got != diffs[k] {
						errs[k] = fmt.Sprintf("split diff:\n%s\nwant:\n%s", got, diffs[k])
					}
				})
			}
			wg.Wait()
			for k, e := range errs {
				if e != "" {
					t.Errorf("index %d: %s", k, e)
				}
			}
			if !ixs[0].table.kept.walked.Load() {
				t.Error("the damaged slot was not found")
			}
		})
	}
}
