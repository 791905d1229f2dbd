package txn_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// eolRepo is a repository whose files were committed and checked out by git
// under the given line-ending settings, so the worktree holds what git
// checkout writes there. autocrlf "(no value)" is the key without "=",
// git's true.
func eolRepo(t *testing.T, autocrlf, attrs string) *gittest.Repo {
	t.Helper()
	g := gittest.New(t)
	if autocrlf == noValue {
		f, err := os.OpenFile(filepath.Join(g.Dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("[core]\n\tautocrlf\n")
		f.Close()
	} else {
		g.Git("config", "core.autocrlf", autocrlf)
	}
	if attrs != "" {
		g.Write(".gitattributes", attrs)
	}
	g.Write("a.txt", "one\ntwo\nthree\n")
	g.Write("crlf.txt", "uno\r\ndos\r\n") // a file committed with CRLF
	g.Write("bin.dat", "x\x00y\r\nz\n")
	g.Git("add", "-A")
	g.Git("commit", "-q", "-m", "initial")
	for _, p := range []string{"a.txt", "crlf.txt", "bin.dat"} {
		os.Remove(filepath.Join(g.Dir, p))
	}
	g.Git("checkout", "--", ".")
	if out := g.Status(); out != "" {
		t.Fatalf("git status after checkout:\n%s", out)
	}
	return g
}

// noValue is eolRepo's core.autocrlf given without "=".
const noValue = "(no value)"

// assertAsGit checks a repository after a step as git would: git status
// clean, git diff and git diff --cached empty, and every given path's
// file gives, through git add's conversion, the blob HEAD holds.
func assertAsGit(t *testing.T, g *gittest.Repo, what string, paths ...string) {
	t.Helper()
	if out := g.Git("status", "--porcelain", "--untracked-files=all"); out != "" {
		t.Fatalf("%s: git status:\n%s", what, out)
	}
	if out := g.Git("diff"); out != "" {
		t.Fatalf("%s: git diff:\n%s", what, out)
	}
	if out := g.Git("diff", "--cached"); out != "" {
		t.Fatalf("%s: git diff --cached:\n%s", what, out)
	}
	for _, p := range paths {
		if _, ok := g.Read(p); !ok {
			continue
		}
		added := strings.TrimSpace(g.Git("hash-object", "--path="+p, p))
		head := strings.TrimSpace(g.Git("rev-parse", "HEAD:"+p))
		if added != head {
			t.Fatalf("%s: git add of %s would store %s, HEAD has %s", what, p, added, head)
		}
		// And the file is what git checkout writes for that blob.
		was := g.Bytes(p)
		os.Remove(filepath.Join(g.Dir, p))
		g.Git("checkout", "--", p)
		if now := g.Bytes(p); !bytes.Equal(now, was) {
			t.Fatalf("%s: %s is %q; git checkout writes %q", what, p, was, now)
		}
	}
	g.Fsck()
}

// Every setting of core.autocrlf and every text/eol attribute: edits and
// whole-file writes of LF or CRLF text, a new file, undo and redo leave the
// repository as git would have it.
func TestLineEndingsAsGit(t *testing.T) {
	if testing.Short() {
		t.Skip("compares every line-ending setting with git: slow; runs without -short")
	}
	t.Parallel()
	for _, c := range []struct{ name, autocrlf, attrs string }{
		{"autocrlf=true", "true", ""},
		{"autocrlf=input", "input", ""},
		{"autocrlf=false", "false", ""},
		{"autocrlf without a value", noValue, ""},
		{"autocrlf=yes", "yes", ""},
		{"text eol=crlf", "false", "*.txt text eol=crlf\n"},
		{"text eol=lf", "true", "*.txt text eol=lf\n"},
		{"text=auto", "false", "* text=auto\n"},
		{"text=auto eol=crlf", "false", "* text=auto eol=crlf\n"},
		{"-text", "true", "*.txt -text\n"},
		{"binary", "true", "*.txt binary\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := eolRepo(t, c.autocrlf, c.attrs)
			aBefore := g.Bytes("a.txt")
			e := open(t, g.Dir, txn.Options{})
			mustApply(t, e, mkStep("edit", replace("a.txt", "two\n", "TWO\n"), replace("crlf.txt", "dos", "DOS")))
			assertAsGit(t, g, "edit", "a.txt", "crlf.txt")
			if crlf := bytes.Contains(aBefore, []byte("\r\n")); crlf != bytes.Contains(g.Bytes("a.txt"), []byte("\r\n")) {
				t.Fatalf("the edit changed a.txt's line endings: %q -> %q", aBefore, g.Bytes("a.txt"))
			}
			mustApply(t, e, mkStep("write-lf", write("a.txt", "one\nTWO\nthree\nfour\n"), write("new.txt", "n1\nn2\n")))
			assertAsGit(t, g, "write LF", "a.txt", "new.txt")
			if crlf := bytes.Contains(aBefore, []byte("\r\n")); crlf != bytes.Contains(g.Bytes("a.txt"), []byte("\r\n")) {
				t.Fatalf("the whole-file write changed a.txt's line endings: %q -> %q", aBefore, g.Bytes("a.txt"))
			}
			mustApply(t, e, mkStep("write-crlf", write("a.txt", "one\r\nfive\r\n"), write("crlf.txt", "uno\r\ntres\r\n")))
			assertAsGit(t, g, "write CRLF", "a.txt", "crlf.txt")
			mustApply(t, e, mkStep("append", step.Op{Kind: step.OpAppend, Path: "new.txt", Content: []byte("n3\n")}))
			assertAsGit(t, g, "append", "new.txt")
			if _, err := e.Undo(3); err != nil {
				t.Fatal(err)
			}
			assertAsGit(t, g, "undo", "a.txt", "crlf.txt", "new.txt")
			if _, err := e.Redo(); err != nil {
				t.Fatal(err)
			}
			assertAsGit(t, g, "redo", "a.txt", "new.txt")
		})
	}
}

// A file that git status calls clean is not refused as dirty, whatever
// its bytes: with core.autocrlf=true a checked-out file has CRLF and its
// blob LF (the bug: every edit was refused as "uncommitted changes").
// A file that git status calls modified is refused.
func TestLineEndingsGuardJudgesAsGitStatus(t *testing.T) {
	t.Parallel()
	g := eolRepo(t, "true", "")
	if !bytes.Contains(g.Bytes("a.txt"), []byte("\r\n")) {
		t.Fatal("git checkout did not write CRLF; the test needs it")
	}
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("s1", replace("a.txt", "one", "ONE")))
	assertAsGit(t, g, "s1", "a.txt")
	e.Close()

	g.Write("a.txt", strings.ReplaceAll(string(g.Bytes("a.txt")), "three", "THREE"))
	before := g.Snapshot()
	e = open(t, g.Dir, txn.Options{})
	r := e.Apply(context.Background(), mkStep("s2", replace("a.txt", "ONE", "one")))
	var dirty *txn.DirtyError
	if r.Status != step.StatusFailed || r.Class != step.ClassRefused || !strings.Contains(r.Error, "uncommitted changes") {
		t.Fatalf("a file git status calls modified: %s %s %s (%v)", r.Status, r.Class, r.Error, dirty)
	}
	e.Close()
	g.AssertUnchanged(before)
}

// A path with a filter attribute (Git LFS) is refused naming the filter,
// and nothing changes.
func TestLineEndingsFilterRefused(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{".gitattributes": "*.psd filter=lfs diff=lfs merge=lfs -text\n", "a.txt": "a\n"})
	before := g.Snapshot()
	e := open(t, g.Dir, txn.Options{})
	r := e.Apply(context.Background(), mkStep("s1", write("art/x.psd", "version https://git-lfs.github.com/spec/v1\n")))
	if r.Status != step.StatusFailed || r.Class != step.ClassRefused || !strings.Contains(r.Error, `filter "lfs"`) || r.Hint == "" {
		t.Fatalf("write to an LFS path: %s %s %s (hint %q)", r.Status, r.Class, r.Error, r.Hint)
	}
	e.Close()
	g.AssertUnchanged(before)
	_ = gitops.ZeroHash
}
