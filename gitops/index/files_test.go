package index

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// filesOf is Files' answer for dir, as `git ls-files -s` prints entries.
func filesOf(ix *Index, dir string) (string, bool) {
	var b strings.Builder
	ok := ix.Files(dir, func(name string, mode uint32, h [20]byte) {
		p := name
		if dir != "" {
			p = dir + "/" + name
		}
		fmt.Fprintf(&b, "%06o %s 0\t%s\n", mode, hex.EncodeToString(h[:]), p)
	})
	return b.String(), ok
}

// Files lists a folder's entries as git reads them from the index (a
// split one of version 2 or 4, entries read in place and entries changed
// in memory), and refuses a folder with a subfolder, a conflict, or no
// entry at all.
func TestFilesListsAFolderAsGitReadsTheIndex(t *testing.T) {
	for _, version := range []int{2, 4} {
		t.Run(fmt.Sprint("v", version), func(t *testing.T) {
			r := splitRepo(t, version)
			r.write("d0/sub/deep.txt", "deep\n")
			r.git("add", "d0/sub/deep.txt")
			r.git("commit", "-q", "-m", "deep")
			userChanges(r)
			lock, ix := lockAndRead(t, r)
			defer lock.Rollback()
			r.write("d2/fresh.txt", "in memory\n")
			if err := ix.Update([]IndexEntry{r.entry("d2/fresh.txt")}, []string{"d2/f05.txt"}); err != nil {
				t.Fatal(err)
			}
			if err := WriteIndex(lock, ix); err != nil {
				t.Fatal(err)
			}
			for dir, want := range map[string]bool{"d2": true, "zz": true, "d1": false, "d0": false, "": false, "d3": false, "d": false} {
				got, ok := filesOf(ix, dir)
				if ok != want {
					t.Fatalf("Files(%q) = %v, want %v:\n%s", dir, ok, want, got)
				}
				if ok {
					if git := r.git("ls-files", "-s", "--", dir+"/"); got != git {
						t.Fatalf("Files(%q):\n%s\ngit ls-files -s:\n%s", dir, got, git)
					}
				}
			}
		})
	}
}

// Files judged in memory, right after Update and before any write: a
// fresh entry in a new subfolder makes the folder not all files, the
// removal of a subfolder's last entry makes it all files again, and the
// folders whose names sort around "d2/" ("d2.txt", "d2-x", "d20") never
// leak into it, for an index of version 2, 3 and 4, split or whole.
func TestFilesInMemoryAfterUpdate(t *testing.T) {
	for _, version := range []int{2, 3, 4} {
		for _, split := range []bool{false, true} {
			t.Run(fmt.Sprint("v", version, split), func(t *testing.T) {
				r := newGitRepo(t)
				r.git("config", "splitIndex.maxPercentChange", "100")
				for _, p := range []string{"d2.txt", "d2-x/y.txt", "d20/z.txt", "d2/a.txt", "d2/b.txt", "d2/sub/deep.txt", "e/a.txt", "e/b.txt"} {
					r.write(p, p+"\n")
				}
				r.git("add", ".")
				r.git("commit", "-q", "-m", "base")
				r.git("update-index", "--index-version", fmt.Sprint(version))
				if split {
					r.git("update-index", "--split-index")
				}
				r.write("e/sub/new.txt", "new\n")
				r.write("d2/c!.txt", "bang\n")
				lock, ix := lockAndRead(t, r)
				defer lock.Rollback()
				if _, ok := filesOf(ix, "d2"); ok {
					t.Fatal("Files(d2) with d2/sub in the index")
				}
				if err := ix.Update([]IndexEntry{r.entry("e/sub/new.txt"), r.entry("d2/c!.txt")}, []string{"d2/sub/deep.txt"}); err != nil {
					t.Fatal(err)
				}
				if got, ok := filesOf(ix, "e"); ok {
					t.Fatalf("Files(e) with a fresh e/sub/new.txt in memory:\n%s", got)
				}
				got, ok := filesOf(ix, "d2")
				if !ok {
					t.Fatal("Files(d2) refused a folder of files once d2/sub's last entry is removed")
				}
				if err := WriteIndex(lock, ix); err != nil {
					t.Fatal(err)
				}
				if git := r.git("ls-files", "-s", "--", "d2/"); got != git {
					t.Fatalf("Files(d2) in memory:\n%s\ngit ls-files -s:\n%s", got, git)
				}
			})
		}
	}
}
