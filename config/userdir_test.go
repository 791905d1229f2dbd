package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A user file is made once, whole, owner-only; a second maker keeps the
// first one's; a symlink in its place is refused, not followed.
func TestUserFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "autocoder")
	path := filepath.Join(dir, "secret")
	if err := WriteUserFile(path, []byte("first\n"), false); err != nil {
		t.Fatal(err)
	}
	if err := WriteUserFile(path, []byte("second\n"), false); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("a second exclusive write: %v", err)
	}
	if got, err := ReadUserFile(path, true); err != nil || string(got) != "first\n" {
		t.Fatalf("read: %q %v", got, err)
	}
	if err := WriteUserFile(path, []byte("replaced\n"), true); err != nil {
		t.Fatal(err)
	}
	if got, _ := ReadUserFile(path, true); string(got) != "replaced\n" {
		t.Fatalf("after replace: %q", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
	if runtime.GOOS != "windows" {
		for p, want := range map[string]os.FileMode{path: 0o600, dir: 0o700} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
				t.Fatalf("%s: %v %v", p, fi.Mode(), err)
			}
		}
		os.Chmod(path, 0o640)
		if _, err := ReadUserFile(path, true); err == nil {
			t.Fatal("a secret others may read was read")
		}
		if _, err := ReadUserFile(path, false); err != nil {
			t.Fatalf("a file others may read but not write: %v", err)
		}
		os.Chmod(path, 0o666)
		if _, err := ReadUserFile(path, false); err == nil {
			t.Fatal("a file others may write was read")
		}
		link := filepath.Join(dir, "link")
		os.Symlink(path, link)
		if _, err := ReadUserFile(link, false); err == nil {
			t.Fatal("a symlink was followed")
		}
	}
}
