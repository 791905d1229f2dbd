package index

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// FuzzSplitIndexRead: whatever the small file of a split index holds (its
// entries, its link extension's hash and bitmaps), its checksum made
// right, reading it with its shared index either fails with
// *UnsupportedIndexError or gives an index that Update, WriteTo and the
// split diff take without a panic and that writes what reads back. The
// seeds are the small files git wrote for user changes (modified, added,
// removed, a conflict, intent-to-add) in every version.
func FuzzSplitIndexRead(f *testing.F) {
	r := splitRepo2(f)
	for _, v := range []int{2, 3, 4} {
		r.git("update-index", "--index-version", fmt.Sprint(v))
		f.Add(readFile(f, r.indexPath()))
	}
	var n atomic.Int64
	f.Fuzz(func(t *testing.T, small []byte) {
		if len(small) < idxHeaderLen+idxHashLen {
			return
		}
		p := filepath.Join(r.dir, ".git", fmt.Sprintf("fuzz-index-%d", n.Add(1)))
		if err := os.WriteFile(p, withSum(small), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(p)
		ix, err := ReadIndex(p)
		if err != nil {
			var ue *UnsupportedIndexError
			if !errors.As(err, &ue) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		lsDebug(ix)
		ix.Gitlinks()
		ix.mtimeSec = 1 << 31 // every raw entry racy
		if err := ix.Update([]IndexEntry{{Path: "d1/f04.txt", Mode: 0o100644, Stat: Stat{Size: 1}},
			{Path: "d0", Mode: 0o100644}}, []string{"d2/f05.txt"}); err != nil {
			return
		}
		if ix.base != nil {
			ix.splitDiff()
		}
		// The entries written smudged, smudged in ix too, as WriteIndex
		// leaves them: then what WriteTo writes is what ix holds.
		ix.settleRacy()
		checkWrittenEquals(t, ix)
	})
}

// splitRepo2 is splitRepo with its user changes, for a fuzz target.
func splitRepo2(f *testing.F) *gitRepo {
	r := newGitRepo(f)
	r.git("config", "splitIndex.maxPercentChange", "100")
	for i := range 30 {
		r.write(fmt.Sprintf("d%d/f%02d.txt", i%3, i), fmt.Sprintf("file %d\n", i))
	}
	r.git("add", ".")
	r.git("commit", "-q", "-m", "base")
	r.git("update-index", "--split-index")
	userChanges(r)
	if l := bytes.Index(readFile(f, r.indexPath()), []byte("link")); l < 0 {
		f.Fatal("no link extension")
	}
	return r
}
