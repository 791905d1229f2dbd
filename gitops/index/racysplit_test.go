package index

import (
	"fmt"
	"testing"
)

// A shared index git wrote may hold racily clean entries: their mtime is
// not older than the index file's, and their file changed since in that
// same second (same size). The racy bound of the shared index's raw
// slots then says that some may be racy (racyRawFree is false), and a
// write of the session, split or whole, smudges them as git does (git's
// prepare_to_write_split_index stores them in the small file, smudged):
// git sees the file modified after each of two writes, and after the
// index is read again by a new process.
func TestARacyEntryOfASharedIndexStaysSmudged(t *testing.T) {
	for _, mode := range []string{"split", "new shared", "whole"} {
		for _, version := range []int{2, 4} {
			t.Run(fmt.Sprintf("%s v%d", mode, version), func(t *testing.T) {
				t.Parallel()
				r := splitRepo(t, version)
				racyChange(t, r, "d1/f04.txt", "FILE 4\n")
				lock, ix := lockAndRead(t, r)
				if ix.racyRawFree() {
					lock.Rollback()
					t.Fatal("the shared index's entries are said not to be racy: the test proves nothing")
				}
				switch mode {
				case "new shared":
					ix.SetSplit(true, 0)
				case "whole":
					ix.SetSplit(false, 0)
				}
				for step, name := range []string{"one.txt", "two.txt"} {
					r.write(name, name)
					if err := ix.Update([]IndexEntry{r.entry(name)}, nil); err != nil {
						t.Fatal(err)
					}
					if err := WriteIndex(lock, ix); err != nil {
						t.Fatal(err)
					}
					if got := r.git("diff", "--name-only"); got != "d1/f04.txt\n" {
						t.Fatalf("after write %d: git diff --name-only = %q, want d1/f04.txt modified", step+1, got)
					}
					if e, _ := ix.Entry("d1/f04.txt"); e.Stat.Size != 0 {
						t.Errorf("after write %d: the Index holds d1/f04.txt with size %d, not smudged", step+1, e.Stat.Size)
					}
					var err error
					if lock, err = Lock(r.indexPath()); err != nil {
						t.Fatal(err)
					}
				}
				// A new process, and its write.
				lock.Rollback()
				if l := linkOf(t, r); l != nil {
					forgetSharedPath(ix.sharedPath(l.hash))
				}
				lock, ix = lockAndRead(t, r)
				r.write("three.txt", "three")
				if err := ix.Update([]IndexEntry{r.entry("three.txt")}, nil); err != nil {
					t.Fatal(err)
				}
				if err := WriteIndex(lock, ix); err != nil {
					t.Fatal(err)
				}
				if got := r.git("diff", "--name-only"); got != "d1/f04.txt\n" {
					t.Fatalf("after a new process's write: git diff --name-only = %q, want d1/f04.txt modified", got)
				}
				r.git("fsck", "--strict", "--no-progress")
			})
		}
	}
}
