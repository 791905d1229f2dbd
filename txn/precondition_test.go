package txn

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/pathpolicy"
)

func TestPreconditions(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "here.txt"), []byte("x"), 0o666)
	p := &pathpolicy.Policy{Root: root}
	if err := filesExist(p, []string{"here.txt"}); err != nil {
		t.Fatal(err)
	}
	err := filesExist(p, []string{"here.txt", "gone.txt", "also/gone"})
	var pe *PreconditionError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "gone.txt, also/gone") || pe.Hint() == "" {
		t.Fatalf("FilesExist: %v", err)
	}
	if err := cwdMatch(root, root+"/"); err != nil {
		t.Fatalf("CwdMatch with a trailing slash: %v", err)
	}
	// Whole path components: the reference's prefix test would pass these.
	for _, want := range []string{root + "2", filepath.Dir(root), "relative"} {
		if err := cwdMatch(root, want); !errors.As(err, &pe) {
			t.Fatalf("CwdMatch(%q): %v", want, err)
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := cwdMatch(filepath.Join(home, "proj"), "~/proj"); err != nil {
		t.Fatalf("~ does not expand: %v", err)
	}
	const sumOfX = "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"
	if err := checkSHA256("f", []byte("x"), true, strings.ToUpper(sumOfX)); err != nil {
		t.Fatal(err)
	}
	if err := checkSHA256("f", []byte("y"), true, sumOfX); !errors.As(err, &pe) {
		t.Fatalf("SHA256 mismatch: %v", err)
	}
	if err := checkSHA256("f", nil, false, sumOfX); !errors.As(err, &pe) {
		t.Fatalf("SHA256 of a missing file: %v", err)
	}
}
