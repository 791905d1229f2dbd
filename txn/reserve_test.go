package txn_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/txn"
)

// The content of a work tree file a step changes is written into blocks
// reserved for it before its temporary file is renamed over the file:
// ext4 allocates a renamed file's delayed blocks, and starts writing them,
// at a rename over another (see gitops.Reserve; the index and the ref are
// gitops' lock files, TestLockFilesAreWrittenIntoReservedBlocks). git
// judges the result.
func TestAFileRenamedOverAnotherIsWrittenIntoReservedBlocks(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\n", "b.txt": "b\n"})
	e := open(t, g.Dir, txn.Options{})
	still := gittest.DelayingAllocation(t, filepath.Join(g.Dir, ".git"))
	var seen []string
	txn.BeforeReplace(t, func(tmp string) {
		if delayed, _ := gittest.DelayedAllocation(t, tmp); delayed {
			t.Errorf("%s waits for its blocks: its rename over the file would allocate them", filepath.Base(tmp))
		}
		seen = append(seen, tmp)
	})
	big := strings.Repeat("uno ", 5000)
	mustApply(t, e, mkStep("s1", replace("a.txt", "one", big), write("b.txt", "bee\n"), write("new.txt", "new\n")))
	still()
	if len(seen) != 2 {
		t.Errorf("%d files were renamed over others, want a.txt and b.txt", len(seen))
	}
	if got := g.MustRead("a.txt"); got != big+"\n" {
		t.Errorf("a.txt holds %d bytes, want %d", len(got), len(big)+1)
	}
	g.AssertClean()
	g.Fsck()
}
