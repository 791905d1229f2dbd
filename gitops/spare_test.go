package gitops_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
)

// spareFiles lists the files in the spare folder: not the spare folders
// (spareDirs), nor the read-only spares held for objects (heldSpares).
func spareFiles(t *testing.T, dir string) []os.FileInfo {
	t.Helper()
	return spareEntries(t, dir, func(fi os.FileInfo) bool { return !fi.IsDir() && !strings.Contains(fi.Name(), "-obj-") })
}

// heldSpares lists the read-only spares held for objects.
func heldSpares(t *testing.T, dir string) []os.FileInfo {
	t.Helper()
	return spareEntries(t, dir, func(fi os.FileInfo) bool { return !fi.IsDir() && strings.Contains(fi.Name(), "-obj-") })
}

// spareDirs lists the folders in the spare folder.
func spareDirs(t *testing.T, dir string) []os.FileInfo {
	t.Helper()
	return spareEntries(t, dir, os.FileInfo.IsDir)
}

func spareEntries(t *testing.T, dir string, keep func(os.FileInfo) bool) []os.FileInfo {
	t.Helper()
	ents, _ := os.ReadDir(filepath.Join(dir, ".git", "autocoder", "spare"))
	var out []os.FileInfo
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && keep(fi) {
			out = append(out, fi)
		}
	}
	return out
}

// fillTo fills the pool with n spares, and as many held read-only ones
// where objects take those (gitops.HoldSpares), and returns both.
func fillTo(t *testing.T, s *gitops.Spares, dir string, n int) (spares, held []os.FileInfo) {
	t.Helper()
	s.Fill(n)
	s.Filled()
	if got := len(spareFiles(t, dir)); got != n {
		t.Fatalf("the spare folder holds %d files, want %d", got, n)
	}
	want := 0
	if gitops.HoldSpares {
		want = n
	}
	if got := len(heldSpares(t, dir)); got != want {
		t.Fatalf("the spare folder holds %d read-only spares, want %d", got, want)
	}
	s.Stop()
	return spareFiles(t, dir), heldSpares(t, dir)
}

func isOneOf(fi os.FileInfo, list []os.FileInfo) bool {
	for _, x := range list {
		if os.SameFile(fi, x) {
			return true
		}
	}
	return false
}

// Spare files are made ahead (Fill, a moment after it is called) and taken by the files a call writes
// under .git: a loose object (read-only, as git leaves it, and git reads
// it) and a lock's private name. A private name that is already there (a
// stale lock's, which must stay the same file as the lock to be proved
// ours) is never replaced by a spare. Keep holds a replaced file until the
// next Fill removes it; Remove leaves no spare folder; a new pool takes up
// what a killed session left.
func TestSpares(t *testing.T) {
	g, r, p := privateRepo(t)
	s := p.Spares()
	r.UseSpares(s)
	// A call that comes at once finds no Fill at work. The delay is made
	// longer than any machine's scheduler can keep Stop waiting (with the
	// real 5 ms, a loaded machine made files first and failed the test).
	gitops.SetFillDelay(t, time.Hour)
	s.Fill(3)
	s.Stop()
	if n := len(spareFiles(t, g.Dir)); n != 0 {
		t.Fatalf("Fill made %d files before its delay", n)
	}
	gitops.SetFillDelay(t, 5*time.Millisecond)
	spares, held := fillTo(t, s, g.Dir, 3)

	h, err := r.WriteBlob([]byte("from a spare\n"))
	if err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(g.Dir, ".git", "objects", h.String()[:2], h.String()[2:])
	fi, err := os.Stat(obj)
	if err != nil || !isOneOf(fi, append(spares, held...)) || fi.Mode().Perm() != 0o444 {
		t.Fatalf("the object %v (%v) is not a read-only spare", fi, err)
	}
	if gitops.HoldSpares && !isOneOf(fi, held) {
		t.Fatal("the object is not one of the read-only spares made for objects")
	}
	if got := g.Git("cat-file", "-p", h.String()); got != "from a spare\n" {
		t.Fatalf("git reads %q", got)
	}
	if len(spareFiles(t, g.Dir))+len(heldSpares(t, g.Dir)) != len(spares)+len(held)-1 {
		t.Fatal("the spare was not taken out of the folder")
	}

	own := filepath.Join(g.Dir, ".git", "autocoder", "own-index")
	l, err := r.LockIndex(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(own); err != nil || !isOneOf(fi, spares) {
		t.Fatalf("the index lock's private name is not a spare: %v", err)
	}
	l.Rollback()
	if err := os.WriteFile(own, nil, 0o666); err != nil { // as a killed run leaves it
		t.Fatal(err)
	}
	stale, _ := os.Stat(own)
	if l, err = r.LockIndex(p); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(own); err != nil || !os.SameFile(fi, stale) {
		t.Fatal("a private name that was there was replaced by a spare")
	}
	lockFile, _ := os.Stat(filepath.Join(g.Dir, ".git", "index.lock"))
	if !os.SameFile(lockFile, stale) {
		t.Fatal("index.lock is not the private file")
	}
	l.Rollback()

	// Keep: a file replaced by a rename stays in the spare folder until Fill.
	old := filepath.Join(g.Dir, "a.txt")
	before, _ := os.Stat(old)
	s.Keep(old)
	os.WriteFile(old+".new", []byte("new\n"), 0o666)
	if err := os.Rename(old+".new", old); err != nil {
		t.Fatal(err)
	}
	kept := ""
	for _, fi := range spareFiles(t, g.Dir) {
		if os.SameFile(fi, before) {
			kept = filepath.Join(g.Dir, ".git", "autocoder", "spare", fi.Name())
		}
	}
	if b, _ := os.ReadFile(kept); kept == "" || string(b) != "a\n" {
		t.Fatal("the replaced file was not kept")
	}
	fillTo(t, s, g.Dir, 3)
	if _, err := os.Stat(kept); err == nil {
		t.Fatal("Fill did not remove the kept file")
	}

	// A killed session's spares: the next pool takes them up and removes them.
	s2 := p.Spares()
	s2.Remove()
	if _, err := os.Stat(filepath.Join(g.Dir, ".git", "autocoder", "spare")); err == nil {
		t.Fatal("the spare folder is still there after Remove")
	}
	filepath.Walk(filepath.Join(g.Dir, ".git", "objects"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(fi.Name(), "tmp_") {
			t.Errorf("%s left behind", p)
		}
		return nil
	})
	if got := g.Git("status", "--porcelain"); got != " M a.txt\n" {
		t.Errorf("status:\n%s", got)
	}
	g.Fsck()
}

// dirFiles is each file in dir (not below) with its content, and each
// symlink with its target.
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if e.Type()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[e.Name()] = "-> " + target
			continue
		}
		b, _ := os.ReadFile(p)
		out[e.Name()] = string(b)
	}
	return out
}

// The spare folder is autocoder's only when autocoder made it: a symlink
// there (to a folder of the user's, on the same file system) or a file is
// neither read nor written, and a file in the folder that autocoder did
// not name is left alone. Before, every file the symlink reached was
// taken as a spare (renamed into .git/objects and overwritten) or removed
// at the end of the session, and a replaced work tree file was linked
// there, outside the repository.
func TestSparesTakeOnlyWhatAutocoderMade(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, spare, outside string)
	}{
		{"symlink to a folder", func(t *testing.T, spare, outside string) {
			if err := os.Symlink(outside, spare); err != nil {
				t.Fatal(err)
			}
		}},
		{"a file", func(t *testing.T, spare, outside string) {
			if err := os.WriteFile(spare, []byte("not a folder\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"a file autocoder did not name", func(t *testing.T, spare, outside string) {
			if err := os.Mkdir(spare, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(spare, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gittest.Isolate(t)
			g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
			// Beside the repository, so that a rename from it succeeds.
			outside := filepath.Join(filepath.Dir(g.Dir), "outside")
			if err := os.Mkdir(outside, 0o777); err != nil {
				t.Fatal(err)
			}
			for _, n := range []string{"precious.txt", "123-0123abcd-1", "123-0123abcd-gone-1"} {
				if err := os.WriteFile(filepath.Join(outside, n), []byte("user data\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := openRepo(t, g.Dir)
			p, err := r.Private()
			if err != nil {
				t.Fatal(err)
			}
			priv := filepath.Join(g.Dir, ".git", "autocoder")
			spare := filepath.Join(priv, "spare")
			tc.make(t, spare, outside)
			beforeOut, beforePriv := dirFiles(t, outside), dirFiles(t, priv)

			s := p.Spares()
			r.UseSpares(s)
			for i := 0; i < 3; i++ { // a session's calls, and the pauses between them
				s.Fill(4)
				s.Filled()
				s.Stop()
				content := fmt.Sprintf("blob %d\n", i)
				h, err := r.WriteBlob([]byte(content))
				if err != nil {
					t.Fatal(err)
				}
				if got := g.Git("cat-file", "-p", h.String()); got != content {
					t.Fatalf("git reads %q", got)
				}
				l, err := r.LockIndex(p)
				if err != nil {
					t.Fatal(err)
				}
				l.Rollback()
				s.Keep(filepath.Join(g.Dir, "a.txt"))
			}
			s.Remove()

			if got := dirFiles(t, outside); !maps.Equal(got, beforeOut) {
				t.Errorf("the folder outside the repository changed:\n%q\nwas\n%q", got, beforeOut)
			}
			if tc.name == "a file autocoder did not name" {
				if b, err := os.ReadFile(filepath.Join(spare, "notes.txt")); err != nil || string(b) != "mine\n" {
					t.Errorf("a file autocoder did not make was taken: %q %v", b, err)
				}
			} else if got := dirFiles(t, priv); got["spare"] != beforePriv["spare"] {
				t.Errorf("the spare path changed: %q, was %q", got["spare"], beforePriv["spare"])
			}
			if got := g.Git("status", "--porcelain"); got != "" {
				t.Errorf("status:\n%s", got)
			}
			g.Fsck()
		})
	}
}

// A spare is empty when it is taken, as Fill made it, and the file written
// into it is not truncated first (see emptied: ext4 made each close after
// O_TRUNC allocate and write back the file). One that holds bytes all the
// same (a file written into the folder under a spare's name) is emptied
// first: the object and the lock hold only what is written into them.
func TestSparesHoldingBytesAreEmptied(t *testing.T) {
	g, r, p := privateRepo(t)
	s := usePool(t, r, p)
	spares, _ := fillTo(t, s, g.Dir, 2)
	s.DropHeld() // the object takes a spare every file takes
	for _, fi := range spares {
		name := filepath.Join(g.Dir, ".git", "autocoder", "spare", fi.Name())
		if err := os.WriteFile(name, []byte(strings.Repeat("not empty\n", 500)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h, err := r.WriteBlob([]byte("short\n"))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := os.Stat(filepath.Join(g.Dir, ".git", "objects", h.String()[:2], h.String()[2:]))
	if err != nil || !isOneOf(obj, spares) {
		t.Fatalf("the object %v (%v) is not a spare", obj, err)
	}
	if got := g.Git("cat-file", "-p", h.String()); got != "short\n" {
		t.Fatalf("git reads %q", got)
	}
	g.Fsck() // "garbage at end of loose object" after the object's bytes
	l, err := r.LockIndex(p)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := os.Stat(filepath.Join(g.Dir, ".git", "index.lock"))
	if err != nil || !isOneOf(lock, spares) || lock.Size() != 0 {
		t.Fatalf("index.lock %v (%v) is not an emptied spare", lock, err)
	}
	l.Rollback()
	g.Fsck()
}

// fanOut lists the fan-out folders of the object folder.
func fanOut(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, ".git", "objects"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]os.FileInfo{}
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && len(e.Name()) == 2 && fi.IsDir() {
			out[e.Name()] = fi
		}
	}
	return out
}

// blobIn returns content that, as a blob, goes into a fan-out folder the
// object folder lacks (want false) or has (want true).
func blobIn(t *testing.T, have map[string]os.FileInfo, want bool) (string, string) {
	t.Helper()
	for i := 0; ; i++ {
		c := fmt.Sprintf("blob %d\n", i)
		fan := gitops.BlobHash([]byte(c)).String()[:2]
		if _, ok := have[fan]; ok == want {
			return c, fan
		}
	}
}

// Spare folders: while the object folder lacks fan-out folders (a packed
// repository has none), Fill makes a few folders ahead, never more than
// the object folder lacks, and an object whose fan-out folder is missing
// gets a spare one renamed into place, with the mode git's own has; an
// object whose folder is there takes none. Remove removes those left; a
// killed session's empty ones are taken up, one holding a file is not.
func TestSpareFolders(t *testing.T) {
	g, r, p := privateRepo(t)
	spareDir := filepath.Join(g.Dir, ".git", "autocoder", "spare")
	if err := os.MkdirAll(spareDir, 0o777); err != nil {
		t.Fatal(err)
	}
	leftEmpty := filepath.Join(spareDir, "123-0123abcd-dir-1")
	leftFull := filepath.Join(spareDir, "123-0123abcd-dir-2")
	for _, d := range []string{leftEmpty, leftFull} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(leftFull, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gits := fanOut(t, g.Dir) // the folders git made for the first commit
	var gitMode os.FileMode
	for _, fi := range gits {
		gitMode = fi.Mode()
	}
	s := p.Spares()
	r.UseSpares(s)
	fillTo(t, s, g.Dir, 2)
	dirs := spareDirs(t, g.Dir)
	if len(dirs) != 9 { // eight, and the one holding a file
		t.Fatalf("the spare folder holds %d folders, want 8 and the one holding a file", len(dirs))
	}

	content, fan := blobIn(t, gits, false)
	h, err := r.WriteBlob([]byte(content))
	if err != nil {
		t.Fatal(err)
	}
	made := fanOut(t, g.Dir)[fan]
	if made == nil || !isOneOf(made, dirs) || made.Mode() != gitMode {
		t.Fatalf("objects/%s (%v) is not a spare folder with git's mode %v", fan, made, gitMode)
	}
	if got := g.Git("cat-file", "-p", h.String()); got != content {
		t.Fatalf("git reads %q", got)
	}
	content, _ = blobIn(t, fanOut(t, g.Dir), true)
	if _, err := r.WriteBlob([]byte(content)); err != nil {
		t.Fatal(err)
	}
	if n := len(spareDirs(t, g.Dir)); n != len(dirs)-1 {
		t.Fatalf("%d spare folders left, want %d: an object whose folder exists took one", n, len(dirs)-1)
	}
	// A folder removed after Fill looked (a git prune of an empty one):
	// the object finds it missing, and a spare folder takes its place.
	content, fan = blobIn(t, fanOut(t, g.Dir), false)
	if err := os.Mkdir(filepath.Join(g.Dir, ".git", "objects", fan), 0o777); err != nil {
		t.Fatal(err)
	}
	fillTo(t, s, g.Dir, 2)
	if err := os.Remove(filepath.Join(g.Dir, ".git", "objects", fan)); err != nil {
		t.Fatal(err)
	}
	dirs = spareDirs(t, g.Dir)
	if _, err := r.WriteBlob([]byte(content)); err != nil {
		t.Fatal(err)
	}
	if made := fanOut(t, g.Dir)[fan]; made == nil || !isOneOf(made, dirs) {
		t.Fatalf("objects/%s (%v), made again after Fill looked, is not a spare folder", fan, made)
	}
	if got := g.Git("cat-file", "-p", gitops.BlobHash([]byte(content)).String()); got != content {
		t.Fatalf("git reads %q", got)
	}
	if _, err := os.Stat(leftEmpty); err == nil {
		// Taken last-in first: the pool's own went first; use them up.
		for i := 0; len(spareDirs(t, g.Dir)) > 1; i++ {
			content, _ := blobIn(t, fanOut(t, g.Dir), false)
			if _, err := r.WriteBlob([]byte(content)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := os.Stat(leftEmpty); err == nil {
		t.Error("the empty spare folder a killed session left was not taken up")
	}

	// The object folder lacks only two: Fill makes no more than that. Two
	// it lacks now: which ones depends on the fixture's commit (its
	// time), and a fixed pair was sometimes one the blobs above made.
	have, lack := fanOut(t, g.Dir), 0
	for i := 0; i < 256; i++ {
		name := fmt.Sprintf("%02x", i)
		if _, ok := have[name]; !ok && lack < 2 {
			lack++
			continue
		}
		os.Mkdir(filepath.Join(g.Dir, ".git", "objects", name), 0o777)
	}
	if lack != 2 {
		t.Fatalf("the object folder lacks %d fan-out folders, want two to leave out", lack)
	}
	fillTo(t, s, g.Dir, 2)
	if n := len(spareDirs(t, g.Dir)); n != 3 {
		t.Errorf("the spare folder holds %d folders, want 2 and the one holding a file", n)
	}
	s.Remove()
	if got := dirFiles(t, leftFull); got["notes.txt"] != "mine\n" || len(got) != 1 {
		t.Errorf("the spare-named folder holding a file changed: %q", got)
	}
	if n := len(spareDirs(t, g.Dir)); n != 1 {
		t.Errorf("Remove left %d spare folders, want only the one holding a file", n)
	}
	if out := g.Git("count-objects", "-v"); !strings.Contains(out, "garbage: 0\n") {
		t.Errorf("count-objects:\n%s", out)
	}
	g.Fsck()
}

// Rename (os.Rename without its look at the target first) replaces a file
// and refuses to replace a folder, as os.Rename does, leaving both.
func TestRenameReplacesAFileNotAFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b, d := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "d")
	os.WriteFile(a, []byte("new\n"), 0o644)
	os.WriteFile(b, []byte("old\n"), 0o644)
	if err := gitops.Rename(a, b); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(b); string(got) != "new\n" {
		t.Fatalf("b holds %q", got)
	}
	if err := os.Mkdir(d, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := gitops.Rename(b, d); err == nil {
		t.Fatal("a file replaced a folder")
	}
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		t.Fatal("the folder is gone")
	}
	if got, _ := os.ReadFile(b); string(got) != "new\n" {
		t.Fatalf("b holds %q", got)
	}
}

// A killed session's read-only spares (made for objects, of no use without
// the descriptor it held) are neither written nor taken for anything
// else, say a lock (the index would become read-only): the next session's
// Fill removes them.
func TestHeldSparesOfAKilledSessionAreRemoved(t *testing.T) {
	g, r, p := privateRepo(t)
	dir := filepath.Join(g.Dir, ".git", "autocoder", "spare")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	// Written in part, as a kill before its rename into place leaves it.
	left := filepath.Join(dir, "123-0123abcd-obj-1")
	if err := os.WriteFile(left, []byte("x\x01\x00K"), 0o444); err != nil {
		t.Fatal(err)
	}
	leftFi, _ := os.Stat(left)
	s := usePool(t, r, p)
	l, err := r.LockIndex(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(g.Dir, ".git", "index.lock")); err != nil || os.SameFile(fi, leftFi) || fi.Mode().Perm()&0o200 == 0 {
		t.Fatalf("index.lock %v (%v) is the read-only spare a killed session left", fi, err)
	}
	l.Rollback()
	fillTo(t, s, g.Dir, 1)
	if _, err := os.Stat(left); err == nil {
		t.Error("Fill left the killed session's read-only spare")
	}
	if got := g.Git("status", "--porcelain"); got != "" {
		t.Errorf("status:\n%s", got)
	}
}

// An object is written into a held spare where it lies and renamed once,
// to its name. A session starting beside this one removes every object
// spare it finds (a killed session's, for all it knows): an object whose
// spare went that way is written as without one, whole, read-only, and
// nothing of either try is left.
func TestAnObjectWhoseSpareWasRemovedBesideUsIsWrittenAnew(t *testing.T) {
	g, r, p := privateRepo(t)
	s := usePool(t, r, p)
	spares, held := fillTo(t, s, g.Dir, 2)
	for _, fi := range held {
		if err := os.Remove(filepath.Join(g.Dir, ".git", "autocoder", "spare", fi.Name())); err != nil {
			t.Fatal(err)
		}
	}
	before := g.Git("count-objects", "-v")
	h, err := r.WriteBlob([]byte("after the spare went\n"))
	if err != nil {
		t.Fatal(err)
	}
	hex := h.String()
	fi, err := os.Stat(filepath.Join(g.Dir, ".git", "objects", hex[:2], hex[2:]))
	if err != nil || fi.Mode().Perm() != 0o444 || isOneOf(fi, held) {
		t.Fatalf("the object %v (%v) is not a new read-only file", fi, err)
	}
	if got := g.Git("cat-file", "-p", hex); got != "after the spare went\n" {
		t.Fatalf("git reads %q", got)
	}
	if ents, _ := os.ReadDir(filepath.Join(g.Dir, ".git", "objects", hex[:2])); len(ents) != 1 {
		t.Fatalf("objects/%s holds %d files, want the object alone", hex[:2], len(ents))
	}
	if n := len(heldSpares(t, g.Dir)); n != 0 {
		t.Fatalf("%d read-only spares in the folder, want none", n)
	}
	if n := len(spareFiles(t, g.Dir)); gitops.HoldSpares && n != len(spares)-1 {
		t.Fatalf("%d spares in the folder, want %d: the object took one", n, len(spares)-1)
	}
	if after := g.Git("count-objects", "-v"); after == before {
		t.Fatal("git counts the same loose objects as before the write")
	}
	g.Git("fsck", "--strict")
}

// usePool makes the Repo take its files from a new pool of p's spares,
// removed when the test ends.
func usePool(t *testing.T, r *gitops.Repo, p *gitops.Private) *gitops.Spares {
	t.Helper()
	s := p.Spares()
	r.UseSpares(s)
	t.Cleanup(s.Remove)
	return s
}

// privateRepo is a committed repository (one file, a.txt), opened, with
// autocoder's private folder: where every spare test starts.
func privateRepo(t *testing.T) (*gittest.Repo, *gitops.Repo, *gitops.Private) {
	t.Helper()
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	r := openRepo(t, g.Dir)
	p, err := r.Private()
	if err != nil {
		t.Fatal(err)
	}
	return g, r, p
}

// A repository received whole (an archive of its folder, .git included)
// can hold a file in the spare folder, named as a spare, that is another
// name of a work tree file (a hard link, which tar keeps). Taking it as a
// spare truncated and rewrote the user's file, with an object's bytes or
// a lock's: a spare that is not the one name of its file is not taken.
func TestSpareLinkedToAnotherFileIsNotTaken(t *testing.T) {
	g, r, p := privateRepo(t)
	spare := filepath.Join(g.Dir, ".git", "autocoder", "spare")
	os.MkdirAll(spare, 0o777)
	for i := 1; i <= 2; i++ {
		if err := os.Link(filepath.Join(g.Dir, "a.txt"), filepath.Join(spare, fmt.Sprintf("123-0123abcd-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	usePool(t, r, p)
	h, err := r.WriteBlob([]byte("new\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Git("cat-file", "-p", h.String()); got != "new\n" {
		t.Fatalf("git reads %q", got)
	}
	l, err := r.LockIndex(p)
	if err != nil {
		t.Fatal(err)
	}
	l.Rollback()
	if got := g.MustRead("a.txt"); got != "a\n" {
		t.Fatalf("a.txt holds %q", got)
	}
	if got := g.Git("status", "--porcelain"); got != "" {
		t.Errorf("status:\n%s", got)
	}
	g.Fsck()
}
