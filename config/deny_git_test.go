package config

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// denyJudged are the patterns and paths on which Denied is judged by git:
// each pattern alone in a .gitignore, each path asked of git check-ignore
// --no-index, which also counts a match on a directory above the path.
var (
	denyJudgedPatterns = []string{"*.pem", ".env", "secrets/**", "**/id_rsa", "build/", "/autocoder.toml",
		"config/prod/*.yaml", "a/**/b", "a/**/b/c", "**", "**/x/**", "sec*", "[ab].txt", "dir/*",
		"x/**/y/**/z", "**/**/k", "docs/*.md", "?.txt", "id_rsa"}
	denyJudgedPaths = []string{"k.pem", "d/k.pem", "d/e/k.pem.bak", ".env", "x/.env", "x/.env/y", ".envrc",
		"secrets", "secrets/a", "secrets/a/b", "x/secrets/a", "id_rsa", "x/y/id_rsa", "id_rsa.pub",
		"build/x", "build", "src/build/x", "autocoder.toml", "x/autocoder.toml", "config/prod/a.yaml",
		"config/prod/x/a.yaml", "a/b", "a/x/y/b", "a/b/c", "a/b/x/b/c", "x/a/b", "k", "x/k", "x/y/k",
		"secret.txt", "a.txt", "c.txt", "dir/f", "dir/sub/f", "x/y/z", "x/q/y/r/z", "x/y/y/z/z",
		"docs/a.md", "docs/sub/a.md", "ab.txt"}
)

// TestDeniedAgreesWithGit has git judge the deny patterns' gitignore
// semantics (the cases *.pem, .env, secrets/**, **/id_rsa and the
// rest of the table): for every pattern and path Denied says what git
// check-ignore says. (Letter case and "!" inside a denied folder differ
// from git on purpose; TestDenied holds them.)
func TestDeniedAgreesWithGit(t *testing.T) {
	dir := t.TempDir()
	run := func(stdin string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.Output()
		if err != nil && !strings.Contains(strings.Join(args, " "), "check-ignore") {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	run("", "init", "-q")
	for _, pat := range denyJudgedPatterns {
		if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(pat+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// -v -n prints every path, with the matching pattern or "::".
		out := run(strings.Join(denyJudgedPaths, "\n")+"\n", "check-ignore", "--no-index", "--stdin", "-v", "-n")
		gitSays := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			src, p, _ := strings.Cut(line, "\t")
			gitSays[p] = !strings.HasPrefix(src, "::")
		}
		c := Config{Paths: Paths{Deny: []string{pat}}}
		for _, p := range denyJudgedPaths {
			if _, denied := c.Denied(p); denied != gitSays[p] {
				t.Errorf("pattern %q, path %q: Denied says %v, git check-ignore says %v", pat, p, denied, gitSays[p])
			}
		}
	}
}

// TestDeniedLinear: a pattern of many "**" against a deep path used to
// try every split of the path per "**" (exponential); it is now bounded by
// segments × components.
func TestDeniedLinear(t *testing.T) {
	pat := strings.Repeat("**/a/", 12) + "z"
	p := strings.Repeat("a/", 40) + "b"
	c := Config{Paths: Paths{Deny: []string{pat}}}
	start := time.Now()
	if _, denied := c.Denied(p); denied {
		t.Fatalf("%s denies %s", pat, p)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("one Denied took %v", d)
	}
}
