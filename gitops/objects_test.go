package gitops_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

func openRepo(t *testing.T, dir string) *gitops.Repo {
	t.Helper()
	r, err := gitops.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestEditTreeMatchesGit edits a tree along a few paths and compares the
// result with the tree git writes for the same files.
func TestEditTreeMatchesGit(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{
		"a.txt": "a\n", "dir/b.txt": "b\n", "dir/sub/c.txt": "c\n", "dir-x/d": "d\n", "dir.x": "e\n", "gone/only": "o\n",
	})
	r := openRepo(t, g.Dir)
	head := plumbing.NewHash(strings.TrimSpace(g.Git("rev-parse", "HEAD^{tree}")))
	blob := func(s string) gitops.Hash {
		h, err := r.WriteBlob([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	tree, err := r.EditTree(head, []gitops.Change{
		{Path: "dir/b.txt", Mode: gitops.ModeExec, Hash: blob("B\n")},
		{Path: "dir/new/deep/n.txt", Mode: gitops.ModeFile, Hash: blob("n\n")},
		{Path: "gone/only", Delete: true},
		{Path: "dir", Delete: true}, // a folder: deleting it as a file is a no-op
		{Path: "dir/sub/c.txt", Delete: true},
		{Path: "z", Mode: gitops.ModeFile, Hash: blob("z\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The same change made by git.
	g.Write("dir/b.txt", "B\n")
	os.Chmod(filepath.Join(g.Dir, "dir/b.txt"), 0o755)
	g.Write("dir/new/deep/n.txt", "n\n")
	g.Write("z", "z\n")
	os.RemoveAll(filepath.Join(g.Dir, "gone"))
	os.Remove(filepath.Join(g.Dir, "dir/sub/c.txt"))
	g.Git("add", "-A")
	want := strings.TrimSpace(g.Git("write-tree"))
	if tree.String() != want {
		t.Fatalf("tree %s, git writes %s:\n%s", tree, want, g.Git("diff-tree", "-r", want, tree.String()))
	}
	// git fsck --strict judges the objects we wrote.
	g.Git("commit", "-qm", "x")
	g.Fsck()

	diff, err := r.DiffTrees(head, tree)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, d := range diff {
		paths = append(paths, d.Path)
	}
	got := strings.Join(paths, " ")
	gitDiff := strings.Fields(g.Git("diff-tree", "-r", "--name-only", "--no-renames", head.String(), tree.String()))
	if len(paths) != len(gitDiff) {
		t.Fatalf("DiffTrees %s, git %v", got, gitDiff)
	}
	for _, p := range gitDiff {
		if !strings.Contains(" "+got+" ", " "+p+" ") {
			t.Fatalf("DiffTrees misses %s: %s", p, got)
		}
	}
}

func TestEditTreeRefusesFileFolderConflicts(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"f": "f\n", "d/x": "x\n"})
	r := openRepo(t, g.Dir)
	head := plumbing.NewHash(strings.TrimSpace(g.Git("rev-parse", "HEAD^{tree}")))
	h, _ := r.WriteBlob([]byte("y"))
	for _, c := range []gitops.Change{{Path: "f/under", Mode: gitops.ModeFile, Hash: h}, {Path: "d", Mode: gitops.ModeFile, Hash: h}} {
		if _, err := r.EditTree(head, []gitops.Change{c}); err == nil {
			t.Fatalf("%s: no error", c.Path)
		}
	}
}

func TestCommitObjectsAndTrailers(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	r := openRepo(t, g.Dir)
	head := plumbing.NewHash(strings.TrimSpace(g.Git("rev-parse", "HEAD")))
	c, err := r.ReadCommit(head)
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := gitops.ParseSignature("Ada Lovelace <ada@example.com> 1700000000 +0530")
	h, err := r.WriteCommit(c.Tree, []gitops.Hash{head}, sig, sig, "subject\n\nbody\n\nAutocoder-Step: s-1\n")
	if err != nil {
		t.Fatal(err)
	}
	out := g.Git("cat-file", "-p", h.String())
	if !strings.Contains(out, "author Ada Lovelace <ada@example.com> 1700000000 +0530\n") {
		t.Fatalf("commit:\n%s", out)
	}
	if got := strings.TrimSpace(g.Git("log", "-1", "--format=%(trailers:key=Autocoder-Step,valueonly)", h.String())); got != "s-1" {
		t.Fatalf("git reads the trailer as %q", got)
	}
	back, err := r.ReadCommit(h)
	if err != nil || back.Trailer("Autocoder-Step") != "s-1" || back.Subject() != "subject" || back.Parents[0] != head {
		t.Fatalf("read back: %+v %v", back, err)
	}
	g.Git("update-ref", "refs/heads/x", h.String())
	g.Fsck()
}

func TestRefsReflogAndPackedRefs(t *testing.T) {
	t.Parallel()
	g, r, own, head, who := refRepo(t)
	if err := r.UpdateRef(gitops.RefUpdate{Name: "refs/heads/w/x", New: head, Message: "create", Who: who}, own); err != nil {
		t.Fatal(err)
	}
	if got := g.Git("reflog", "show", "--format=%gs", "refs/heads/w/x"); got != "create\n" {
		t.Fatalf("reflog %q", got)
	}
	// A stale old value is refused under the lock, and nothing moves.
	err := r.UpdateRef(gitops.RefUpdate{Name: "refs/heads/w/x", Old: gitops.ZeroHash, New: head, Who: who}, own)
	if _, ok := err.(*gitops.RefChangedError); !ok {
		t.Fatalf("stale old value: %v", err)
	}
	// Packed: git pack-refs moves it into packed-refs; we read and delete it there.
	g.Git("pack-refs", "--all")
	got, ok, err := r.ResolveRef("refs/heads/w/x")
	if err != nil || !ok || got != head {
		t.Fatalf("packed ref: %v %v %v", got, ok, err)
	}
	if err := r.UpdateRef(gitops.RefUpdate{Name: "refs/heads/w/x", Old: head, Who: who}, own); err != nil {
		t.Fatal(err)
	}
	if _, err := g.GitErr("rev-parse", "--verify", "-q", "refs/heads/w/x"); err == nil {
		t.Fatal("the packed ref is still there")
	}
	if strings.TrimSpace(g.Git("rev-parse", "main")) != head.String() {
		t.Fatal("deleting one packed ref lost another")
	}
	g.Fsck()
}

func TestLockViaAndReleaseStale(t *testing.T) {
	defer func(w time.Duration) { gitops.LockWait = w }(gitops.LockWait)
	gitops.LockWait = 100 * time.Millisecond // the refusal, not the wait, is tested here
	dir := t.TempDir()
	target := filepath.Join(dir, "index")
	own := filepath.Join(dir, "own-index")
	l, err := gitops.LockVia(target, own)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gitops.LockVia(target, own+"2"); err == nil {
		t.Fatal("a second lock was granted")
	} else if _, ok := err.(*gitops.LockedError); !ok {
		t.Fatalf("second lock: %v", err)
	}
	// "Crash": the lock stays behind; ReleaseStale proves it ours and removes it.
	_ = l
	removed, err := gitops.ReleaseStale(target, own)
	if err != nil || !removed {
		t.Fatalf("ReleaseStale: %v %v", removed, err)
	}
	// A lock git holds (not ours) is never removed.
	os.WriteFile(target+".lock", nil, 0o666)
	os.WriteFile(own, nil, 0o666)
	removed, _ = gitops.ReleaseStale(target, own)
	if removed {
		t.Fatal("ReleaseStale removed a lock that is not ours")
	}
	if _, err := os.Stat(target + ".lock"); err != nil {
		t.Fatal("git's lock is gone")
	}
}

func TestOpenRefusesWhatItCannotWrite(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	for _, cfg := range []string{"[extensions]\n\tobjectFormat = sha256\n", "[extensions]\n\trefStorage = reftable\n", "[extensions]\n\tnewThing = yes\n", "[core]\n\tbare = true\n"} {
		conf := filepath.Join(g.Dir, ".git", "config")
		orig, _ := os.ReadFile(conf)
		os.WriteFile(conf, append(append([]byte{}, orig...), cfg...), 0o666)
		_, err := gitops.Open(g.Dir)
		os.WriteFile(conf, orig, 0o666)
		if _, ok := err.(*gitops.UnsupportedError); !ok {
			t.Fatalf("%q: %v", cfg, err)
		}
	}
	if _, err := gitops.Open(t.TempDir()); err == nil {
		t.Fatal("a folder outside any repository opened")
	}
}

// An object a git gc packed after the repository was opened (the loose file
// gone, the pack new to go-git) is read from the new pack, without Refresh.
func TestReadObjectAfterGitGC(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	r := openRepo(t, g.Dir)
	h, err := r.WriteBlob([]byte("written before gc\n"))
	if err != nil {
		t.Fatal(err)
	}
	g.Git("update-ref", "refs/keep", h.String()) // gc keeps what a ref names
	g.Git("gc", "-q", "--prune=now")
	if out := g.Git("count-objects", "-v"); !strings.Contains(out, "count: 0\n") {
		t.Fatalf("git gc left loose objects:\n%s", out)
	}
	b, err := r.ReadBlob(h)
	if err != nil || string(b) != "written before gc\n" {
		t.Fatalf("ReadBlob after gc = %q, %v", b, err)
	}
	g.Fsck()
}

// A loose object is written as git writes it: read-only, in its fan-out
// folder (created when missing), by way of a temporary file there that does
// not stay; git reads it back (cat-file, fsck). objects/pack is not
// touched: Refresh reopens the object store, and rereads every pack index,
// when that folder changes.
func TestWriteObjectLikeGit(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	r := openRepo(t, g.Dir)
	pack := filepath.Join(g.Dir, ".git", "objects", "pack")
	// An mtime long past: a change of the folder would show in it, however
	// coarse the file system's clock.
	long := time.Unix(1_000_000_000, 0)
	if err := os.Chtimes(pack, long, long); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(pack)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		content := fmt.Sprintf("blob %d\n", i)
		h, err := r.WriteBlob([]byte(content))
		if err != nil {
			t.Fatal(err)
		}
		if again, err := r.WriteBlob([]byte(content)); err != nil || again != h {
			t.Fatalf("writing it again: %s %v", again, err)
		}
		if got := g.Git("cat-file", "-p", h.String()); got != content {
			t.Fatalf("git reads %q, want %q", got, content)
		}
		fi, err := os.Stat(filepath.Join(g.Dir, ".git", "objects", h.String()[:2], h.String()[2:]))
		if err != nil || fi.Mode().Perm() != 0o444 {
			t.Fatalf("the loose object: %v %v, want read-only", fi.Mode(), err)
		}
	}
	// Blobs on either side of the size stored uncompressed (4,096 bytes
	// with the 10-byte header "blob 4086\x00"), and an empty one.
	for _, n := range []int{0, 4085, 4086, 4087, 70000} {
		content := strings.Repeat("x", n)
		h, err := r.WriteBlob([]byte(content))
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Git("cat-file", "-p", h.String()); got != content {
			t.Fatalf("git reads %d bytes of the %d-byte blob", len(got), n)
		}
	}
	// Trees (stored without compression): git reads them as the same
	// trees. 3,000 entries in one folder make a tree of more than one
	// stored block (65,535 bytes).
	var changes []gitops.Change
	for i := range 3050 {
		h, _ := r.WriteBlob([]byte(fmt.Sprintf("blob %d\n", i%50)))
		dir := fmt.Sprintf("d%d", i%3)
		if i >= 50 {
			dir = "big"
		}
		changes = append(changes, gitops.Change{Path: fmt.Sprintf("%s/f%d", dir, i), Mode: gitops.ModeFile, Hash: h})
	}
	tree, err := r.EditTree(gitops.ZeroHash, changes)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Git("ls-tree", "-r", "--name-only", tree.String()); strings.Count(got, "\n") != 3050 || !strings.Contains(got, "d1/f49\n") || !strings.Contains(got, "big/f3049\n") {
		t.Fatalf("git ls-tree -r: %d lines", strings.Count(got, "\n"))
	}
	if big, _ := strconv.Atoi(strings.TrimSpace(g.Git("cat-file", "-s", tree.String()+":big"))); big <= 65535 {
		t.Fatalf("the big folder's tree is %d bytes, not more than a stored block", big)
	}
	after, _ := os.Stat(pack)
	if !after.ModTime().Equal(before.ModTime()) {
		t.Error("writing objects changed objects/pack")
	}
	filepath.Walk(filepath.Join(g.Dir, ".git", "objects"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(fi.Name(), "tmp_") {
			t.Errorf("%s left behind", p)
		}
		return nil
	})
	g.Fsck()
}

// Writing an object that is already there as an old unreachable loose file
// (a step undone long ago, written again) freshens it, as git's
// write_object_file does: a git gc running beside us prunes unreachable
// loose objects by age, and would otherwise remove the object the commit
// being made names.
func TestWriteObjectFreshensAnOldOne(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	r := openRepo(t, g.Dir)
	h, err := r.WriteBlob([]byte("written long ago\n"))
	if err != nil {
		t.Fatal(err)
	}
	loose := filepath.Join(g.Dir, ".git", "objects", h.String()[:2], h.String()[2:])
	old := time.Now().Add(-30 * 24 * time.Hour)
	if err := os.Chtimes(loose, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := r.WriteBlob([]byte("written long ago\n")); err != nil {
		t.Fatal(err)
	}
	g.Git("prune", "--expire=2.weeks.ago") // as git gc prunes: unreachable loose objects older than that
	if _, err := g.GitErr("cat-file", "-e", h.String()); err != nil {
		t.Fatal("the object written again was pruned as old")
	}
}

// TestCommitTree reads a commit's tree: from the object store for a
// commit git wrote, from memory for the one the Repo wrote last (its loose
// file gone, the answer is still its tree), and an error for a commit
// that is neither.
func TestCommitTree(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	r := openRepo(t, g.Dir)
	head := plumbing.NewHash(strings.TrimSpace(g.Git("rev-parse", "HEAD")))
	want := plumbing.NewHash(strings.TrimSpace(g.Git("rev-parse", "HEAD^{tree}")))
	if got, err := r.CommitTree(head); err != nil || got != want {
		t.Fatalf("CommitTree(HEAD) = %s, %v; want %s", got, err, want)
	}
	sig, _ := gitops.ParseSignature("Ada Lovelace <ada@example.com> 1700000000 +0530")
	h, err := r.WriteCommit(want, []gitops.Hash{head}, sig, sig, "subject\n")
	if err != nil {
		t.Fatal(err)
	}
	hex := h.String()
	if err := os.Remove(filepath.Join(g.Dir, ".git", "objects", hex[:2], hex[2:])); err != nil {
		t.Fatal(err)
	}
	if got, err := r.CommitTree(h); err != nil || got != want {
		t.Fatalf("CommitTree(written) = %s, %v; want %s from memory", got, err, want)
	}
	if _, err := r.CommitTree(want); err == nil {
		t.Fatal("CommitTree of a tree's name: no error")
	}
}

// TestOpenBareAsGit: core.bare is read as git reads a boolean (no "="
// is true, TRUE and 1 too): Open refuses exactly the repositories git
// calls bare, and changes nothing in either case.
func TestOpenBareAsGit(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"", " = TRUE", " = 1", " = yes", " =", " = false", " = 0", " = off"} {
		t.Run("bare"+v, func(t *testing.T) {
			t.Parallel()
			g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
			conf := filepath.Join(g.Dir, ".git", "config")
			orig, _ := os.ReadFile(conf)
			os.WriteFile(conf, append(append([]byte{}, orig...), "[core]\n\tbare"+v+"\n"...), 0o666)
			gitBare := strings.TrimSpace(g.Git("rev-parse", "--is-bare-repository")) == "true"
			before := g.Git("for-each-ref")
			r, err := gitops.Open(g.Dir)
			if err == nil {
				r.Close()
			}
			if _, refused := err.(*gitops.UnsupportedError); refused != gitBare || !refused && err != nil {
				t.Errorf("Open: %v; git calls it bare: %v", err, gitBare)
			}
			os.WriteFile(conf, orig, 0o666)
			if after := g.Git("for-each-ref"); after != before {
				t.Errorf("refs changed:\n%s\n%s", before, after)
			}
			if out := g.Status(); out != "" {
				t.Errorf("git status:\n%s", out)
			}
		})
	}
}
