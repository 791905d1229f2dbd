package index

import (
	"encoding/binary"
	"fmt"
	"os"
	"testing"
)

// git writes each file of a split index in the version its own entries
// need: `git update-index --index-version N` rewrites only the small file,
// and a small file without extended entries is version 2 whatever its
// shared index holds (git's do_write_index). autocoder then holds entries
// of the shared index's version in an index of another: a write, whole or
// split, with or without a new shared index, is still what git reads. The
// cases "by hand" are a small file without entries whose header says
// another version than its shared index's, which git reads as well.
func TestASplitIndexWhoseFilesHaveTwoVersionsIsWrittenAsGitReadsIt(t *testing.T) {
	for _, tc := range []struct {
		shared, small int
		byHand        bool
	}{{3, 2, false}, {2, 4, false}, {3, 4, false}, {4, 2, false}, {4, 3, false}, {3, 4, true}, {2, 4, true}, {4, 2, true}} {
		for _, mode := range []string{"split", "new shared", "whole"} {
			t.Run(fmt.Sprintf("shared v%d small v%d %v %s", tc.shared, tc.small, tc.byHand, mode), func(t *testing.T) {
				t.Parallel()
				r := newGitRepo(t)
				for i := range 12 {
					r.write(fmt.Sprintf("d%d/f%02d.txt", i%3, i), fmt.Sprintf("file %d\n", i))
				}
				r.write("d1/intent.txt", "intent\n")
				r.git("add", "d0", "d1/f01.txt", "d1/f04.txt", "d1/f07.txt", "d1/f10.txt", "d2")
				r.git("commit", "-q", "-m", "base")
				if tc.shared >= 3 {
					r.git("add", "-N", "d1/intent.txt") // an extended entry
				}
				r.git("update-index", "--index-version", fmt.Sprint(tc.shared))
				r.git("update-index", "--split-index")
				if tc.byHand {
					b := readFile(t, r.indexPath())
					if n := binary.BigEndian.Uint32(b[8:]); n != 0 {
						t.Fatalf("the small index has %d entries", n)
					}
					binary.BigEndian.PutUint32(b[4:], uint32(tc.small))
					if err := os.WriteFile(r.indexPath(), withSum(b), 0o644); err != nil {
						t.Fatal(err)
					}
					r.readAsGit(t)
				} else {
					r.git("update-index", "--index-version", fmt.Sprint(tc.small))
				}
				lock, ix := lockAndRead(t, r)
				defer lock.Rollback()
				switch mode {
				case "new shared":
					ix.SetSplit(true, 0)
				case "whole":
					ix.SetSplit(false, 0)
				}
				r.write("d0/f03.txt", "changed\n")
				r.write("d2/new.txt", "new\n")
				if err := ix.Update([]IndexEntry{r.entry("d0/f03.txt"), r.entry("d2/new.txt")}, []string{"d1/f07.txt"}); err != nil {
					t.Fatal(err)
				}
				want := lsDebug(ix)
				if err := WriteIndex(lock, ix); err != nil {
					t.Fatal(err)
				}
				if got, err := r.run(nil, "ls-files", "--stage", "--debug"); err != nil || gitFlags.ReplaceAllString(got, "\n") != want {
					t.Fatalf("git reads (%v):\n%s\nwant:\n%s", err, got, want)
				}
				r.git("fsck", "--strict", "--no-progress")
				if got := lsDebug(r.readAsGit(t)); got != want {
					t.Fatalf("read back:\n%s\nwant:\n%s", got, want)
				}
			})
		}
	}
}
