package txn_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// The session refuses exactly the new paths that git, run fresh, ignores,
// while the rules change between and within its calls: root and nested
// .gitignore, negation, info/exclude, core.excludesFile, a .gitignore the
// user edits (in place, to the same size and mtime), one a step writes,
// and one the user deletes.
func TestSessionIgnoresWhatGitIgnores(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{
		"a.txt":          "a\n",
		".gitignore":     "*.log\n!keep.log\nbuild/\n",
		"sub/.gitignore": "*.tmp\n!*.log\n",
	})
	excl := filepath.Join(t.TempDir(), "excludes")
	os.WriteFile(excl, []byte("*.bak\n"), 0o666)
	g.Git("config", "core.excludesFile", excl)
	os.MkdirAll(filepath.Join(g.Dir, ".git", "info"), 0o777)
	os.WriteFile(filepath.Join(g.Dir, ".git", "info", "exclude"), []byte("secret*\n"), 0o666)

	e := open(t, g.Dir, txn.Options{SplitIndex: true})
	ctx := context.Background()
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	n := 0
	call := func(ops ...step.Op) step.Result {
		t.Helper()
		n++
		if err := e.Acquire(ctx, time.Second); err != nil {
			t.Fatal(err)
		}
		r := e.Apply(ctx, mkStep(fmt.Sprint("call", n), ops...))
		if err := e.Release(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	// try writes each path in a call of its own, and checks the session's
	// answer against git check-ignore run now.
	try := func(what string, paths ...string) {
		t.Helper()
		for _, p := range paths {
			_, err := g.GitErr("check-ignore", "-q", "--no-index", p)
			want := err == nil
			before := g.Snapshot()
			r := call(write(p, "x\n"))
			switch refused := r.Status == step.StatusFailed && strings.Contains(r.Error, "git ignores it"); {
			case refused != want:
				t.Errorf("%s: %s: %s %s; git ignores it: %v", what, p, r.Status, r.Error, want)
			case refused:
				g.AssertUnchanged(before)
			case r.Status != step.StatusApplied:
				t.Errorf("%s: %s: %s %s", what, p, r.Status, r.Error)
			}
			if got := g.Git("status", "--porcelain", "--ignored"); strings.Contains(got, " "+p+"\n") || strings.Contains(got, "!! "+p) {
				t.Errorf("%s: %s: git status disagrees:\n%s", what, p, got)
			}
		}
	}
	try("rules at the start", "x.log", "keep.log", "build/o", "ok.txt", "sub/a.tmp", "sub/b.log", "sub/d/c.tmp",
		"y.bak", "sub/z.bak", "secret.txt", "sub/secret2")

	// The user edits sub/.gitignore in place: same size, same mtime.
	p := filepath.Join(g.Dir, "sub", ".gitignore")
	fi, _ := os.Stat(p)
	f, _ := os.OpenFile(p, os.O_WRONLY, 0)
	f.WriteAt([]byte("*.tm_\n!*.log\n"), 0)
	f.Close()
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	try("sub/.gitignore edited in place", "sub/e.tmp", "sub/e.tm_")
	g.Git("commit", "-qam", "user's rules")

	// The user edits the global and the repository's exclude files.
	os.WriteFile(excl, []byte("*.orig\n"), 0o666)
	os.WriteFile(filepath.Join(g.Dir, ".git", "info", "exclude"), []byte("private*\n"), 0o666)
	try("exclude files edited", "w.bak", "w.orig", "secret3", "private1")

	// A step writes a .gitignore (in a folder asked about before), the
	// next call creates a file it ignores; then one un-ignoring a file.
	if r := call(write("deep/.gitignore", "*.gen\n")); r.Status != step.StatusApplied {
		t.Fatalf("write deep/.gitignore: %s %s", r.Status, r.Error)
	}
	try("deep/.gitignore written by a step", "deep/a.gen", "deep/b.txt")
	if r := call(write("sub/.gitignore", "*.tmp\n")); r.Status != step.StatusApplied {
		t.Fatalf("write sub/.gitignore: %s %s", r.Status, r.Error)
	}
	try("sub/.gitignore rewritten by a step", "sub/f.tm_", "sub/f.tmp", "sub/f.log")

	// The user deletes the root .gitignore (and commits it).
	g.Git("rm", "-q", ".gitignore")
	g.Git("commit", "-q", "-m", "no root rules")
	try("root .gitignore deleted", "z.log", "build/p")

	// core.excludesFile set elsewhere in the repository's config.
	excl2 := filepath.Join(t.TempDir(), "excludes2")
	os.WriteFile(excl2, []byte("*.cfg\n"), 0o666)
	g.Git("config", "core.excludesFile", excl2)
	try("core.excludesFile changed", "a.cfg", "b.orig")
	g.Fsck()
}

// A new path the user staged (git add -f past a rule) is the user's work:
// the step is refused as touching staged changes, as git check-ignore with
// the index would not call it ignored; the session asks git about
// untracked paths only.
func TestStagedIgnoredPathIsDirtyNotIgnored(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", ".gitignore": "*.log\n"})
	g.Write("x.log", "mine\n")
	g.Git("add", "-f", "x.log")
	e := open(t, g.Dir, txn.Options{SplitIndex: true})
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("s", write("x.log", "theirs\n")))
	var dirty *txn.DirtyError
	if r.Status != step.StatusFailed || !strings.Contains(r.Error, "staged") {
		t.Fatalf("write to a staged ignored path: %s %s, want a %T", r.Status, r.Error, dirty)
	}
	g.AssertUnchanged(before)
}
