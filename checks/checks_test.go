package checks_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/checks"
)

func TestResolve(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(root, "real"), 0o777)
	os.Symlink(outside, filepath.Join(root, "link"))
	os.Symlink("real", filepath.Join(root, "inner-link"))
	p := &checks.Policy{Root: root,
		Deny:    func(rel string) (string, bool) { return "*.pem", strings.HasSuffix(rel, ".pem") },
		Gitlink: func(rel string) bool { return rel == "vendor/sub" },
	}
	ok := map[string]string{
		"a.txt":                          "a.txt",
		"./dir/../b.txt":                 "b.txt",
		"dir//c.txt":                     "dir/c.txt",
		filepath.Join(root, "real", "x"): "real/x",
		"new/deep/file":                  "new/deep/file",
		".gitignore":                     ".gitignore",
		"docs/.github/workflows/ci.yml":  "docs/.github/workflows/ci.yml",
		"link":                           "link", // the link itself; writers refuse it with NotSymlink
		"vendor/other":                   "vendor/other",
		filepath.Join(root, "..", filepath.Base(root), "y"): "y",
	}
	for raw, want := range ok {
		got, err := p.Resolve(raw)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	refused := []string{"", "  ", "../x", "a/../../x", "/etc/passwd", outside + "/x", ".git/config", ".GIT/HEAD", "sub/.Git/x",
		`.git\hooks\x`, `sub\.git\config`, "GIT~1/config", ".git./config", ".git::$INDEX_ALLOCATION/x", ".g\u200cit/hooks/x",
		"link/escape.txt", "inner-link/x", "vendor/sub/file", "vendor/sub", "secret.pem", "keys/id.pem", ".", "a\x00b",
		filepath.Dir(root) + "/" + filepath.Base(root) + "2/x"}
	for _, raw := range refused {
		_, err := p.Resolve(raw)
		var re *checks.RefusedError
		if !errors.As(err, &re) || re.Hint() == "" {
			t.Errorf("Resolve(%q) = %v, want a refusal with a hint", raw, err)
		}
	}
	if err := p.NotSymlink("link"); err == nil {
		t.Error("NotSymlink accepted a symbolic link")
	}
	if err := p.NotSymlink("real"); err != nil {
		t.Errorf("NotSymlink refused a folder: %v", err)
	}
}

func TestPreconditions(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "here.txt"), []byte("x"), 0o666)
	p := &checks.Policy{Root: root}
	if err := checks.FilesExist(p, []string{"here.txt"}); err != nil {
		t.Fatal(err)
	}
	err := checks.FilesExist(p, []string{"here.txt", "gone.txt", "also/gone"})
	var pe *checks.PreconditionError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "gone.txt, also/gone") || pe.Hint() == "" {
		t.Fatalf("FilesExist: %v", err)
	}
	if err := checks.CwdMatch(root, root+"/"); err != nil {
		t.Fatalf("CwdMatch with a trailing slash: %v", err)
	}
	// Whole path components: the reference's prefix test would pass these.
	for _, want := range []string{root + "2", filepath.Dir(root), "relative"} {
		if err := checks.CwdMatch(root, want); !errors.As(err, &pe) {
			t.Fatalf("CwdMatch(%q): %v", want, err)
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := checks.CwdMatch(filepath.Join(home, "proj"), "~/proj"); err != nil {
		t.Fatalf("~ does not expand: %v", err)
	}
	const sumOfX = "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"
	if err := checks.SHA256("f", []byte("x"), true, strings.ToUpper(sumOfX)); err != nil {
		t.Fatal(err)
	}
	if err := checks.SHA256("f", []byte("y"), true, sumOfX); !errors.As(err, &pe) {
		t.Fatalf("SHA256 mismatch: %v", err)
	}
	if err := checks.SHA256("f", nil, false, sumOfX); !errors.As(err, &pe) {
		t.Fatalf("SHA256 of a missing file: %v", err)
	}
}
