package txn_test

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/txn"
)

// A step reads the tree of the folder it changes from the index where the
// index holds that folder as HEAD does, not from the object: inflating a
// large folder's tree was a tenth of a session's call. The object is made
// unreadable for the step, so that the step can only succeed without it;
// git judges the commit once it is back.
func TestAStepReadsItsFolderFromTheIndex(t *testing.T) {
	t.Parallel()
	for _, d := range []string{"d", "x/y/d"} { // at the top, and deeper
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			g := gittest.NewWithCommit(t, map[string]string{d + "/a.txt": "a\n", d + "/b.txt": "b\n", d + "/c.txt": "c\n", "top.txt": "t\n"})
			tree := strings.TrimSpace(g.Git("rev-parse", "HEAD:"+d))
			obj := filepath.Join(g.Dir, ".git", "objects", tree[:2], tree[2:])
			kept, err := os.ReadFile(obj)
			if err != nil {
				t.Fatal(err)
			}
			os.Chmod(obj, 0o644)
			if err := os.WriteFile(obj, []byte("not a zlib stream"), 0o644); err != nil {
				t.Fatal(err)
			}
			e := open(t, g.Dir, txn.Options{})
			r := e.Apply(t.Context(), mkStep("s1", write(d+"/a.txt", "A\n")))
			if err := os.WriteFile(obj, kept, 0o444); err != nil {
				t.Fatal(err)
			}
			if r.Error != "" {
				t.Fatalf("the step read the folder's tree object: %s %s", r.Status, r.Error)
			}
			if got, want := g.Git("ls-tree", "-r", "--name-only", "HEAD"), g.Git("ls-tree", "-r", "--name-only", "HEAD~1"); got != want {
				t.Fatalf("HEAD's files:\n%s\nwere:\n%s", got, want)
			}
			if got := g.Git("show", "HEAD:"+d+"/a.txt", "HEAD:"+d+"/b.txt"); got != "A\nb\n" {
				t.Fatalf("HEAD's a.txt and b.txt: %q", got)
			}
			if st := g.Git("status", "--porcelain"); st != "" {
				t.Fatalf("git status:\n%s", st)
			}
			g.Fsck()
		})
	}
}

// Where the user staged work in the folder a step changes, the index no
// longer lists HEAD's tree of it: the step's commit holds HEAD's version
// of the staged file, and the staged version stays staged, as it did when
// the folder was always read from its tree.
func TestAStepBesideStagedWorkInItsFolderCommitsHEADsFiles(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"d/a.txt": "a\n", "d/b.txt": "b\n"})
	g.Write("d/b.txt", "staged\n")
	g.Git("add", "d/b.txt")
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("s1", write("d/a.txt", "A\n")))
	if got := g.Git("show", "HEAD:d/a.txt", "HEAD:d/b.txt"); got != "A\nb\n" {
		t.Fatalf("HEAD's d/a.txt and d/b.txt: %q", got)
	}
	if got := g.Git("diff", "--name-only", "HEAD~1", "HEAD"); got != "d/a.txt\n" {
		t.Fatalf("the step's commit changes:\n%s", got)
	}
	if got := g.Git("status", "--porcelain"); got != "M  d/b.txt\n" {
		t.Fatalf("git status:\n%s", got)
	}
	g.Fsck()
}

// An index entry's path may hold a NUL (a version 2 index gives its length;
// git reads it as it is). A folder's only entry "a.txt NUL <a.txt's blob>
// 100644 c.txt" with c.txt's blob encodes to the very bytes of HEAD's tree
// {a.txt, c.txt}: offered under that tree's name, it made the step read
// the folder as that one strange entry and write the tree a.txt, c.txt,
// b.txt, out of order (git fsck --strict: treeNotSorted), where HEAD's
// tree with b.txt added is {a.txt, b.txt, c.txt}.
func TestAnIndexPathWithANULIsNotTakenForItsFolderTree(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"d/a.txt": "x\n", "d/c.txt": "c\n", "top.txt": "t\n"})
	ha := strings.TrimSpace(g.Git("rev-parse", "HEAD:d/a.txt"))
	hc := strings.TrimSpace(g.Git("rev-parse", "HEAD:d/c.txt"))
	raw, err := hex.DecodeString(ha)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.IndexByte(raw, '/') >= 0 {
		t.Fatalf("a.txt's blob %s holds a '/': pick another content", ha)
	}
	// The path with a placeholder of the same length, written by git,
	// then the placeholder patched in place and the checksum made again.
	weird := "a.txt\x00" + string(raw) + "100644 c.txt"
	hold := "a.txt" + strings.Repeat("Q", len(weird)-len("a.txt"))
	g.Git("rm", "-q", "--cached", "d/a.txt", "d/c.txt")
	g.GitIn("100644 "+hc+"\td/"+hold+"\n", "update-index", "--index-info")
	ixPath := filepath.Join(g.Dir, ".git", "index")
	b, err := os.ReadFile(ixPath)
	if err != nil {
		t.Fatal(err)
	}
	if v := b[7]; v != 2 {
		t.Fatalf("git wrote an index of version %d", v)
	}
	at := bytes.Index(b, []byte("d/"+hold))
	if at < 0 {
		t.Fatal("the placeholder path is not in the index")
	}
	copy(b[at+2:], weird)
	sum := sha1.Sum(b[:len(b)-20])
	copy(b[len(b)-20:], sum[:])
	if err := os.WriteFile(ixPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("s1", write("d/b.txt", "b\n")))
	e.Close()
	if got := g.Git("ls-tree", "--name-only", "HEAD:d"); got != "a.txt\nb.txt\nc.txt\n" {
		t.Fatalf("the step's tree of d:\n%q", got)
	}
	g.Fsck()
}
