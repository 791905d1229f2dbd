package gitops

import (
	"os"
	"path/filepath"
	"testing"
)

// A worktree's kept scan is dropped when the index package found the
// shared index it is about damaged (index.Verifier.Forget), so that the
// next read hashes that file again; a scan about another file stays.
func TestSharedVerifiedForgetsOnlyTheFileItIsAbout(t *testing.T) {
	t.Parallel()
	v := sharedVerified{filepath.Join(t.TempDir(), "shared-index-scan")}
	if err := os.WriteFile(v.path, []byte("sharedindex.aaaa 1 2 3\nACSCAN1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v.Forget("sharedindex.aaa") // a prefix of the name is another file
	v.Forget("sharedindex.bbbb")
	if _, err := os.Stat(v.path); err != nil {
		t.Fatalf("a scan about another file was dropped: %v", err)
	}
	v.Forget("sharedindex.aaaa")
	if _, err := os.Stat(v.path); !os.IsNotExist(err) {
		t.Fatalf("the scan about the damaged file stays: %v", err)
	}
	v.Forget("sharedindex.aaaa") // nothing left to drop
}
