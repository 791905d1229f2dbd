package gitops_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/gitops/index"
)

// A worktree hashes and walks a shared index file once: the read that
// verified it records the file (name, device, inode, size) and its scan in
// autocoder's folder, a later read of that file trusts both, and another
// file at that name (a new inode) is hashed again.
func TestASharedIndexIsVerifiedOnce(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	g.Git("update-index", "--split-index")
	if err := os.MkdirAll(filepath.Join(g.Dir, ".git", "autocoder"), 0o777); err != nil {
		t.Fatal(err)
	}
	shared, err := filepath.Glob(filepath.Join(g.Dir, ".git", "sharedindex.*"))
	if err != nil || len(shared) != 1 {
		t.Fatalf("shared indexes: %v %v", shared, err)
	}
	marker := filepath.Join(g.Dir, ".git", "autocoder", "shared-index-scan")
	read := func() error {
		t.Helper()
		r, err := gitops.Open(g.Dir)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		_, err = r.ReadIndex()
		return err
	}
	if err := read(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(marker)
	if err != nil || !strings.HasPrefix(string(b), filepath.Base(shared[0])+" ") {
		t.Fatalf("after the first read the marker is %q (%v), want the shared index's name first", b, err)
	}
	_, scan, _ := strings.Cut(string(b), "\n")

	// Another file at the shared index's name, damaged in an object name
	// (the structure holds): a new inode, so it is hashed and refused.
	data, err := os.ReadFile(shared[0])
	if err != nil {
		t.Fatal(err)
	}
	data[12+40] ^= 0xff // a byte of the first entry's object name
	tmp := shared[0] + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, shared[0]); err != nil {
		t.Fatal(err)
	}
	var ue *index.UnsupportedIndexError
	if err := read(); !errors.As(err, &ue) || !strings.Contains(ue.Reason, "checksum mismatch") {
		t.Fatalf("the damaged file at the verified name was read: %v", err)
	}
	// Vouched for in the marker, the same file is not hashed: the read
	// that was refused now succeeds. (This is what saves the hash.)
	fi, err := os.Stat(shared[0])
	if err != nil {
		t.Fatal(err)
	}
	st := index.StatOf(fi)
	line := filepath.Base(shared[0]) + " " + itoa(uint64(st.Dev)) + " " + itoa(uint64(st.Ino)) + " " + itoa(uint64(fi.Size())) + "\n"
	if err := os.WriteFile(marker, []byte(line+scan), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := read(); err != nil {
		t.Errorf("a shared index the marker vouches for was hashed again: %v", err)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
