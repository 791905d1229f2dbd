package gitops_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops"
)

// A folder at a loose object's name (planted in a repository received
// whole, .git included) is no object. Its writer took the failed rename
// for another writer's object there, and a step committed a blob git
// could not read. The write fails, with or without spares, and writes
// nothing; once the name is free, git reads what is written.
func TestAFolderAtAnObjectsNameIsNoObject(t *testing.T) {
	for _, spares := range []bool{false, true} {
		g, r, p := privateRepo(t)
		if spares {
			s := p.Spares()
			r.UseSpares(s)
			fillTo(t, s, g.Dir, 2)
		}
		content := []byte("planted\n")
		hex := gitops.BlobHash(content).String()
		folder := filepath.Join(g.Dir, ".git", "objects", hex[:2], hex[2:])
		if err := os.MkdirAll(folder, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, "x"), nil, 0o666); err != nil {
			t.Fatal(err)
		}
		if _, err := r.WriteBlob(content); err == nil || !strings.Contains(err.Error(), "write blob object") {
			t.Fatalf("spares %v: a folder at the blob's name: %v, want the write refused", spares, err)
		}
		if fi, err := os.Lstat(folder); err != nil || !fi.IsDir() {
			t.Fatalf("spares %v: the folder was touched: %v", spares, err)
		}
		if err := os.RemoveAll(folder); err != nil {
			t.Fatal(err)
		}
		h, err := r.WriteBlob(content)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Git("cat-file", "-p", h.String()); got != string(content) {
			t.Fatalf("spares %v: git reads %q", spares, got)
		}
		g.Fsck()
	}
}
