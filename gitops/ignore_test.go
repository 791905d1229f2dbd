package gitops

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// The git check-ignore kept by a Repo that died (killed, out of memory) is
// started again at the next question, which is answered; Close stops it.
func TestIgnoredRestartsADeadGit(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{".gitignore": "*.log\n"})
	r := openIn(t, g.Dir)
	ask := func() {
		t.Helper()
		got, err := r.Ignored([]string{"a.log", "b.txt", "d/c.log"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got["a.log"] == nil || got["d/c.log"] == nil || got["a.log"].Pattern != "*.log" {
			t.Fatalf("Ignored: %v", got)
		}
	}
	ask()
	first := r.ignore.cmd.Process.Pid
	r.ignore.cmd.Process.Kill()
	ask()
	if r.ignore.cmd == nil || r.ignore.cmd.Process.Pid == first {
		t.Fatal("the dead git check-ignore was not replaced")
	}
	r.Close()
	if r.ignore.cmd != nil {
		t.Fatal("Close left git check-ignore running")
	}
}

// A long session asking about new files in many folders keeps the rule
// files it stats before each question bounded: past maxIgnoreFiles it
// starts git again instead.
func TestIgnoredStatsBoundedRuleFiles(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{".gitignore": "*.log\n"})
	r := openIn(t, g.Dir)
	for i := range 3 * maxIgnoreFiles {
		if _, err := r.Ignored([]string{fmt.Sprintf("d%d/x.txt", i)}); err != nil {
			t.Fatal(err)
		}
		if n := len(r.ignore.seen); n > maxIgnoreFiles+4 {
			t.Fatalf("after %d folders the checker stats %d files before each question", i+1, n)
		}
	}
}

// BenchmarkIgnored asks about one new path, as a call creating a file
// does: of the git check-ignore kept by the Repo (kept), and of one started
// for the question (fresh, what every call cost before a Repo kept one).
//
//	go test -run '^$' -bench BenchmarkIgnored ./gitops/
func BenchmarkIgnored(b *testing.B) {
	gittest.Isolate(b)
	g := gittest.NewWithCommit(b, map[string]string{".gitignore": "*.log\n", "d/.gitignore": "*.tmp\n"})
	for _, fresh := range []bool{false, true} {
		b.Run(map[bool]string{false: "kept", true: "fresh"}[fresh], func(b *testing.B) {
			r, err := Open(g.Dir)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			for i := 0; i < b.N; i++ {
				if fresh {
					r.ForgetIgnores()
				}
				if _, err := r.Ignored([]string{"d/new.txt"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A path is a name, never a pathspec: git check-ignore reads its --stdin
// paths as pathspecs, where a leading ":" is magic (":(glob)x" and ":!x"
// made git exit, failing the step; ":/y.txt" was asked as "y.txt"). Quotes,
// backslashes and non-ASCII letters come back as they were asked.
func TestIgnoredPathsAreLiteral(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{".gitignore": "/y.txt\n*.log\n"})
	r := openIn(t, g.Dir)
	paths := []string{":(glob)x.txt", ":!x.txt", ":^x.txt", ":/y.txt", "y.txt", `q"u'o\te ü.txt`, "ünï.log", ":(literal)*.log"}
	got, err := r.Ignored(paths)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"y.txt": true, "ünï.log": true, ":(literal)*.log": true}
	for _, p := range paths {
		if (got[p] != nil) != want[p] {
			t.Errorf("Ignored(%q) = %v, want ignored %v", p, got[p], want[p])
		}
	}
}

// The pathspec variables of the user's environment (GIT_LITERAL_PATHSPECS,
// which some editors' git front ends set) are not the questions': with any
// of them git check-ignore refused every path ("pathspec magic not
// supported by this command"), and every new file's step failed.
func TestIgnoredWithPathspecVariables(t *testing.T) {
	for _, v := range []string{"GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS"} {
		t.Run(v, func(t *testing.T) {
			gittest.Isolate(t)
			g := gittest.NewWithCommit(t, map[string]string{".gitignore": "*.log\n"})
			t.Setenv(v, "1")
			r := openIn(t, g.Dir)
			got, err := r.Ignored([]string{"a.log", "a.txt", "*.LOG"})
			if err != nil {
				t.Fatal(err)
			}
			if got["a.log"] == nil || got["a.txt"] != nil || got["*.LOG"] != nil {
				t.Errorf("Ignored = %v, want a.log alone", got)
			}
		})
	}
}

// A configured path of another user's home ("~name/ignore"), which git
// expands from the user database, is read there, not taken for a folder
// named "~name" in the work tree; an unknown user's names no file.
func TestUserConfigFileOfAnotherUser(t *testing.T) {
	u, err := user.Current()
	if err != nil {
		t.Fatalf("the test needs the current user: %v", err)
	}
	r := &Repo{Root: t.TempDir()}
	if got, want := r.userConfigFile("~"+u.Username+"/git/ignore", "ignore"), filepath.Join(u.HomeDir, "git", "ignore"); got != want {
		t.Errorf("~%s/git/ignore = %q, want %q", u.Username, got, want)
	}
	if got := r.userConfigFile("~no-such-user-of-autocoder/ignore", "ignore"); got != "" {
		t.Errorf("~no-such-user-of-autocoder/ignore = %q, want no file", got)
	}
}

// core.excludesFile set in a file the repository's config includes (not
// the repository's file itself) changes: the kept git check-ignore is
// replaced, and the next question is answered by the new rules.
func TestIgnoredSeesExcludesFileChange(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	dir := t.TempDir()
	inc := filepath.Join(dir, "inc.conf")
	logs, tmps := filepath.Join(dir, "logs"), filepath.Join(dir, "tmps")
	os.WriteFile(logs, []byte("*.log\n"), 0o666)
	os.WriteFile(tmps, []byte("*.tmp\n"), 0o666)
	os.WriteFile(inc, []byte("[core]\n\texcludesFile = "+logs+"\n"), 0o666)
	g.Git("config", "include.path", inc)
	r := openIn(t, g.Dir)
	ask := func(want string) {
		t.Helper()
		got, err := r.Ignored([]string{"x.log", "x.tmp"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[want] == nil {
			t.Fatalf("Ignored: %v, want %s alone", got, want)
		}
	}
	ask("x.log")
	os.WriteFile(inc, []byte("[core]\n\texcludesFile = "+tmps+"\n"), 0o666)
	ask("x.tmp")
}

// core.ignoreCase set in a file the repository's config includes (the
// user's global file, or an include: not the repository's own file,
// whose stat the checker keeps) changes: the kept git check-ignore is
// replaced, and "*.LOG" then ignores x.log, as git add would.
func TestIgnoredSeesIgnoreCaseChange(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	inc := filepath.Join(t.TempDir(), "inc.conf")
	os.WriteFile(inc, []byte("[core]\n\tignoreCase = false\n"), 0o666)
	g.Git("config", "include.path", inc)
	if err := os.WriteFile(filepath.Join(g.Dir, ".git", "info", "exclude"), []byte("*.LOG\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	r := openIn(t, g.Dir)
	ask := func(want int) {
		t.Helper()
		got, err := r.Ignored([]string{"x.log"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != want {
			t.Fatalf("Ignored(x.log) under *.LOG: %v, want %d", got, want)
		}
	}
	ask(0)
	os.WriteFile(inc, []byte("[core]\n\tignoreCase = true\n"), 0o666)
	ask(1)
}
