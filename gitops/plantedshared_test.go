package gitops_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
)

// A folder at a loose object's name is no object in a repository that
// reads objects through alternates either (git clone --shared). There
// WriteObject asks go-git whether it has the object, and go-git opens
// the name, which a folder passes: the object was taken as there and not
// written, and a step committed a blob git cannot read. The write fails,
// as without alternates, and writes nothing; once the name is free, git
// reads what is written.
func TestAFolderAtAnObjectsNameIsNoObjectWithAlternates(t *testing.T) {
	t.Parallel()
	src := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	dir := filepath.Join(t.TempDir(), "clone")
	if out, err := exec.Command("git", "clone", "-q", "--shared", src.Dir, dir).CombinedOutput(); err != nil {
		t.Fatalf("git clone --shared: %v\n%s", err, out)
	}
	g := &gittest.Repo{T: t, Dir: dir}
	r := openRepo(t, dir)
	content := []byte("planted in a shared clone\n")
	hex := gitops.BlobHash(content).String()
	folder := filepath.Join(dir, ".git", "objects", hex[:2], hex[2:])
	if err := os.MkdirAll(folder, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "x"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	_, err := r.WriteBlob(content)
	if err == nil {
		err = r.ObjectsWritten()
	}
	if err == nil || !strings.Contains(err.Error(), "write blob object") {
		t.Fatalf("a folder at the blob's name: %v, want the write refused", err)
	}
	if fi, err := os.Lstat(folder); err != nil || !fi.IsDir() {
		t.Fatalf("the folder was touched: %v", err)
	}
	if err := os.RemoveAll(folder); err != nil {
		t.Fatal(err)
	}
	h, err := r.WriteBlob(content)
	if err == nil {
		err = r.ObjectsWritten()
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Git("cat-file", "-p", h.String()); got != string(content) {
		t.Fatalf("git reads %q", got)
	}
	g.Fsck()
}
