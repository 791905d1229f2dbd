package pathpolicy_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/pathpolicy"
)

func TestResolve(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(root, "real"), 0o777)
	os.Symlink(outside, filepath.Join(root, "link"))
	os.Symlink("real", filepath.Join(root, "inner-link"))
	p := &pathpolicy.Policy{Root: root,
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
		var re *pathpolicy.RefusedError
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
