//go:build unix

package gitops_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
)

// A .gitattributes of the work tree that is a symlink is not read, as git
// does not read it ("unable to access '.gitattributes'"): a repository
// that commits one to /dev/zero made autocoder read until it ran out of
// memory, and one to a file of rules gave files conversions git does not
// apply. One that is a named pipe (a program left it) is not read either:
// nobody writes to it, and the read waited forever.
func TestAttributesAreRegularFilesOfTheTree(t *testing.T) {
	t.Parallel()
	r := gittest.NewWithCommit(t, map[string]string{"rules": "*.bin filter=lfs\n", "sub/x": "x\n", "pipe/x": "x\n"})
	for _, l := range []struct{ name, to string }{{".gitattributes", "rules"}, {"sub/.gitattributes", "../rules"}} {
		os.MkdirAll(filepath.Dir(filepath.Join(r.Dir, l.name)), 0o777)
		if err := os.Symlink(l.to, filepath.Join(r.Dir, l.name)); err != nil {
			t.Fatal(err)
		}
	}
	pipe := filepath.Join(r.Dir, "pipe", ".gitattributes")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	repo, err := gitops.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	for _, p := range []string{"a.bin", "sub/a.bin", "pipe/a.bin"} {
		done := make(chan error, 1)
		go func() { done <- repo.Attributes().Conversion(p).Unsupported() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: %v; git does not read that .gitattributes", p, err)
			}
		case <-time.After(10 * time.Second):
			if f, err := os.OpenFile(pipe, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
			t.Fatalf("%s: hung reading the pipe", p)
		}
	}
	if got := r.Git("check-attr", "filter", "a.bin", "sub/a.bin"); !strings.Contains(got, "\na.bin: filter: unspecified\nsub/a.bin: filter: unspecified\n") {
		t.Errorf("git check-attr: %q", got)
	}
}
