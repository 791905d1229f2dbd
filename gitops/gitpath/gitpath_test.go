package gitpath_test

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gitpath"
	"github.com/autocoder/autocoder/gitops/gittest"
)

// dotGit are spellings of a path inside .git that git refuses to track
// with core.protectNTFS and core.protectHFS on (verify_path). Each must be
// refused by Verify with ErrDotGit and found by HasDotGit.
var dotGit = []string{
	".git", ".GIT", ".Git/config", "a/.git", "a/.git/hooks/pre-commit", "a/b/.gIt",
	// NTFS: trailing dots and spaces, the 8.3 short name, streams.
	".git.", ".git..", ".git ", ".git. .", "a/.git ./x",
	"git~1", "GIT~1", "Git~1/config", "a/GIT~1/x", "git~1.", "git~1 ",
	".git::$INDEX_ALLOCATION", ".git::$INDEX_ALLOCATION/hooks/x", ".git:stream", "git~1::$INDEX_ALLOCATION",
	// "\" is a separator on Windows.
	`.git\hooks\x`, `a\.git\x`, `a/b\GIT~1`, `.git\`, `x\.git. \y`,
	// HFS+: code points it ignores when comparing names.
	".g\u200cit", ".gi\u200dt", "\ufeff.git", ".git\u200e", ".\u200fgit", ".GI\u202aT", ".g\u202eit/x",
	".g\u206ai\u206ft", "a/\u200c.git\ufeff/hooks",
}

// allowed are names git tracks although they resemble .git.
var allowed = []string{
	".gitignore", ".github/workflows/ci.yml", ".gitx", ".git~1", "git~2", "GIT~12", "git", "a.git",
	"a/b.git/c", ".g\u200bit" /* U+200B is not ignored by HFS+ */, "..a", "...", "a..b", ".gitmodules",
	"gi7eba~1", `a\b`, ".g\u00e9t",
}

// notPaths are paths git refuses for other reasons than .git.
var notPaths = []string{"", "/a", "a//b", "a/", "./a", "a/./b", "..", "a/../b"}

// drivePaths start with a drive letter, which git refuses on Windows only
// (has_dos_drive_prefix); Verify refuses them everywhere, since the
// repository may be checked out there.
var drivePaths = []string{"C:/x", "c:x"}

// linkRefused are names a symbolic link may not have: git reads
// .gitmodules without following links, so it refuses one in any spelling.
var linkRefused = []string{".gitmodules", ".GITMODULES", "a/.gitmodules", ".gitmodules.", ".gitmodules ::$DATA",
	"GITMOD~1", "gitmod~4", "gi7eba~1", ".gitmodu\u200cles", ".gitmodules/x"}

// linkAllowed are names git accepts for a symbolic link.
var linkAllowed = []string{".gitmodulesx", "gitmod~5", "gi7eba~0", "gi7eba~12"}

func TestVerify(t *testing.T) {
	for _, p := range dotGit {
		if err := gitpath.Verify(p, false); !errors.Is(err, gitpath.ErrDotGit) {
			t.Errorf("Verify(%q) = %v, want ErrDotGit", p, err)
		}
		if !gitpath.HasDotGit(p) {
			t.Errorf("HasDotGit(%q) = false", p)
		}
	}
	for _, p := range allowed {
		if err := gitpath.Verify(p, false); err != nil {
			t.Errorf("Verify(%q) = %v, want nil", p, err)
		}
		if gitpath.HasDotGit(p) {
			t.Errorf("HasDotGit(%q) = true", p)
		}
	}
	for _, p := range append(append([]string{}, notPaths...), drivePaths...) {
		if err := gitpath.Verify(p, false); err == nil || errors.Is(err, gitpath.ErrDotGit) {
			t.Errorf("Verify(%q) = %v, want an error other than ErrDotGit", p, err)
		}
	}
	// A symbolic link may not be .gitmodules in any spelling (git reads it
	// without following links); a regular file may.
	for _, p := range linkRefused {
		if err := gitpath.Verify(p, true); err == nil {
			t.Errorf("Verify(%q, symlink) = nil, want refused", p)
		}
		if err := gitpath.Verify(p, false); err != nil {
			t.Errorf("Verify(%q, file) = %v, want nil", p, err)
		}
	}
	for _, p := range linkAllowed {
		if err := gitpath.Verify(p, true); err != nil {
			t.Errorf("Verify(%q, symlink) = %v, want nil", p, err)
		}
	}
}

// IsDotGit takes one name as a directory walker sees it.
func TestIsDotGit(t *testing.T) {
	for _, n := range []string{".git", ".GIT", "git~1", ".git.", ".git::$INDEX_ALLOCATION", ".g\u200cit"} {
		if !gitpath.IsDotGit(n) {
			t.Errorf("IsDotGit(%q) = false", n)
		}
	}
	for _, n := range []string{".github", "git", "x.git", "git~2", ".gitignore", ""} {
		if gitpath.IsDotGit(n) {
			t.Errorf("IsDotGit(%q) = true", n)
		}
	}
}

// git is the judge: every spelling in dotGit and notPaths is refused by
// `git update-index --add` (verify_path) with both protections on, and
// every name in allowed is accepted; every single name of dotGit in a tree
// is reported by `git fsck --strict` as hasDotgit. git on this system
// takes "\" for a name character, so a "\" spelling that git refuses shows
// that git's own NTFS test is applied after a backslash.
func TestGitAgrees(t *testing.T) {
	gittest.Isolate(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed to judge the table")
	}
	r := gittest.New(t)
	blob := strings.TrimSpace(gitIn(t, r.Dir, "x\n", "hash-object", "-w", "--stdin"))
	add := func(mode, p string) error {
		cmd := exec.Command("git", "-c", "core.protectHFS=true", "-c", "core.protectNTFS=true",
			"update-index", "--add", "--cacheinfo", mode+","+blob+","+p)
		cmd.Dir = r.Dir
		out, err := cmd.CombinedOutput()
		if err == nil {
			// Take it out again, so that one entry cannot stand in the
			// way of the next ("a" and "a/b").
			r.Git("update-index", "--force-remove", "--", p)
			return nil
		}
		return errors.New(string(out))
	}
	for _, p := range append(append([]string{}, dotGit...), notPaths...) {
		if p == "" {
			continue // the command line cannot say it
		}
		if add("100644", p) == nil {
			t.Errorf("git update-index accepted %q; the table says git refuses it", p)
		}
	}
	for _, p := range allowed {
		if err := add("100644", p); err != nil {
			t.Errorf("git update-index refused %q: %v", p, err)
		}
	}
	for _, p := range linkRefused {
		if add("120000", p) == nil {
			t.Errorf("git update-index accepted a symbolic link %q; the table says git refuses it", p)
		}
	}
	for _, p := range linkAllowed {
		if err := add("120000", p); err != nil {
			t.Errorf("git update-index refused a symbolic link %q: %v", p, err)
		}
	}
	trees := map[string]string{}
	for _, p := range dotGit {
		if strings.Contains(p, "/") {
			continue // a tree entry is one name
		}
		tree := strings.TrimSpace(gitIn(t, r.Dir, "100644 blob "+blob+"\t"+p+"\n", "mktree"))
		trees[tree] = p
	}
	// One fsck over all the trees: each must be reported.
	out, _ := r.GitErr("fsck", "--strict", "--no-dangling")
	for tree, p := range trees {
		if !gittest.HasLine(out, "error in tree "+tree+": hasDotgit: contains '.git'") {
			t.Errorf("git fsck --strict does not report hasDotgit for a tree entry %q:\n%s", p, out)
		}
	}
}

// gitIn runs git with stdin as its standard input.
func gitIn(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s <<%q: %v: %s", strings.Join(args, " "), stdin, err, stderr.String())
	}
	return string(out)
}
