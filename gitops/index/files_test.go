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
