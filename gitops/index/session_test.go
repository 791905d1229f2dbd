package index

import (
	"cmp"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// forgetSharedPath drops one shared index from this process's cache, as a
// new process would not have it, without touching other tests' files.
func forgetSharedPath(p string) {
	sharedIndexes.Lock()
	delete(sharedIndexes.m, p)
	sharedIndexes.Unlock()
}

// sessionModel is what the index must hold: entries by path and stage, in
// git's order.
type sessionModel []IndexEntry

func (m sessionModel) sorted() sessionModel {
	slices.SortFunc(m, func(a, b IndexEntry) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), a.Stage-b.Stage)
	})
	return m
}

// update is Update's contract: a set entry replaces every stage of its
// path, the files standing where its directories go and the entries
// under it; remove drops every stage of a path.
func (m sessionModel) update(set []IndexEntry, remove []string) sessionModel {
	gone := func(p string) bool {
		if slices.Contains(remove, p) {
			return true
		}
		for _, e := range set {
			if p == e.Path || strings.HasPrefix(p, e.Path+"/") || strings.HasPrefix(e.Path, p+"/") {
				return true
			}
		}
		return false
	}
	out := slices.DeleteFunc(slices.Clone(m), func(e IndexEntry) bool { return gone(e.Path) })
	return append(out, set...).sorted()
}

func (m sessionModel) lsDebug() string {
	ix := &Index{fresh: m}
	var b strings.Builder
	for i := range m {
		e := ix.fresh[i]
		fmt.Fprintf(&b, "%06o %x %d\t%s\n  ctime: %d:%d\n  mtime: %d:%d\n  dev: %d\tino: %d\n  uid: %d\tgid: %d\n  size: %d\n",
			e.Mode, e.Hash, e.Stage, e.Path, e.Stat.CtimeSec, e.Stat.CtimeNsec, e.Stat.MtimeSec, e.Stat.MtimeNsec,
			e.Stat.Dev, e.Stat.Ino, e.Stat.UID, e.Stat.GID, e.Stat.Size)
	}
	return b.String()
}

// A session keeps one Index and writes it at every step (autocoder mcp,
// run): long random sequences of changes (new paths before the first
// and after the last, modified files, files replacing directories and
// back, removals, resolved conflicts, skip-worktree and intent-to-add
// entries), written whole or split, with new shared indexes written along
// the way and the index read again now and then as a new process does
// (from the kept scan). After every write git reads exactly the model,
// git diff-files finds every entry's stat data its file's, and the index
// read back is the model too.
func TestASessionOfRandomStepsIsWhatGitReads(t *testing.T) {
	rounds := 40
	if testing.Short() {
		rounds = 12
	}
	for _, version := range []int{2, 3, 4} {
		for _, mode := range []string{"whole", "git-split", "split-20", "split-0"} {
			t.Run(fmt.Sprintf("v%d/%s", version, mode), func(t *testing.T) {
				t.Parallel()
				sessionRun(t, version, mode, rounds, uint64(version*10+len(mode)))
			})
		}
	}
}

func sessionRun(t *testing.T, version int, mode string, rounds int, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	r := splitRepo(t, version)
	if mode == "whole" || mode == "split-0" || mode == "split-20" {
		r.git("update-index", "--no-split-index")
	}
	userChanges(r)
	const emptyBlob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
	pool := []string{"!first", "0first", "a", "a/b", "a/b/c", "a-b", "a.b", "d0", "d0/f00.txt/x", "d1/f04.txt",
		"d1/sub/deep/file", "d2", "m/n", "m-n", "zz", "zz/intent.txt", "zzz/last", "~last", "d1/f01.txt", "d2/f05.txt"}
	for i := range 30 {
		pool = append(pool, fmt.Sprintf("d%d/f%02d.txt", i%3, i))
	}
	m := &memVerifier{scans: map[string][]byte{}}
	read := func() *Index {
		t.Helper()
		ix, err := ReadIndexWith(r.indexPath(), m)
		if err != nil {
			t.Fatal(err)
		}
		switch mode {
		case "split-20":
			ix.SetSplit(true, 20)
		case "split-0":
			ix.SetSplit(true, 0)
		}
		return ix
	}
	lock, err := Lock(r.indexPath())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { lock.Rollback() }()
	ix := read()
	model := sessionModel(slices.Collect(ix.All()))
	if got, want := model.lsDebug(), r.gitLsDebug(); got != want {
		t.Fatalf("read:\n%s\ngit:\n%s", got, want)
	}
	var log []string
	for round := range rounds {
		var set []IndexEntry
		var remove []string
		for range 1 + rng.IntN(4) {
			p := pool[rng.IntN(len(pool))]
			if rng.IntN(4) == 0 {
				remove = append(remove, p)
				continue
			}
			if slices.ContainsFunc(set, func(e IndexEntry) bool {
				return e.Path == p || strings.HasPrefix(p, e.Path+"/") || strings.HasPrefix(e.Path, p+"/")
			}) {
				continue
			}
			// The work tree as the index will be: p a file, nothing
			// under it, no file where its directories go.
			full := filepath.Join(r.dir, p)
			os.RemoveAll(full)
			for d := filepath.Dir(p); d != "."; d = filepath.Dir(d) {
				if fi, err := os.Lstat(filepath.Join(r.dir, d)); err == nil && !fi.IsDir() {
					os.Remove(filepath.Join(r.dir, d))
				}
			}
			r.write(p, fmt.Sprintf("%s in round %d\n", p, round))
			e := r.entry(p)
			switch k := rng.IntN(8); {
			case k == 0 && version >= 3:
				e.SkipWorktree = true
			case k == 1 && version >= 3:
				// git add -N: the empty blob, the file's stat data.
				e.IntentToAdd = true
				hex.Decode(e.Hash[:], []byte(emptyBlob))
			}
			set = append(set, e)
		}
		for _, p := range remove {
			if !slices.ContainsFunc(set, func(e IndexEntry) bool { return e.Path == p }) {
				os.Remove(filepath.Join(r.dir, p))
			}
		}
		log = append(log, fmt.Sprintf("round %d: set %v remove %v", round, paths(set), remove))
		if err := ix.Update(set, remove); err != nil {
			t.Fatalf("%s: %v", strings.Join(log, "\n"), err)
		}
		model = model.update(set, remove)
		if got, want := lsDebug(ix), model.lsDebug(); got != want {
			t.Fatalf("%s\nafter Update:\n%s\nwant:\n%s", strings.Join(log, "\n"), got, want)
		}
		if err := WriteIndex(lock, ix); err != nil {
			t.Fatalf("%s: %v", strings.Join(log, "\n"), err)
		}
		want := model.lsDebug()
		if got := r.gitLsDebug(); got != want {
			t.Fatalf("%s\ngit reads:\n%s\nwant:\n%s", strings.Join(log, "\n"), got, want)
		}
		if got := lsDebug(ix); got != want {
			t.Fatalf("%s\nthe session's index after the write:\n%s\nwant:\n%s", strings.Join(log, "\n"), got, want)
		}
		var dirty []string
		for _, e := range model {
			if (e.Stage != 0 || e.IntentToAdd) && !slices.Contains(dirty, e.Path) {
				dirty = append(dirty, e.Path)
			}
		}
		if got, want := r.git("diff-files", "--name-only"), strings.Join(append(dirty, ""), "\n"); got != want && !(got == "" && want == "\n") {
			t.Fatalf("%s\ngit diff-files --name-only = %q, want %q", strings.Join(log, "\n"), got, want)
		}
		if round%8 == 7 {
			r.git("fsck", "--strict", "--no-progress")
			r.git("status", "--porcelain")
		}
		if lock, err = Lock(r.indexPath()); err != nil {
			t.Fatal(err)
		}
		// Now and then the user's git changes the index between two
		// steps (its own split, version, new shared index), and the
		// session reads it again, as it does when the index file changed.
		if rng.IntN(5) == 0 {
			lock.Rollback()
			var stage0 []string
			for _, e := range model {
				if e.Stage == 0 && !e.SkipWorktree && !e.IntentToAdd {
					stage0 = append(stage0, e.Path)
				}
			}
			p := stage0[rng.IntN(len(stage0))]
			var args []string
			switch rng.IntN(7) {
			case 0:
				r.write(p, fmt.Sprintf("the user's %d\n", round))
				args = []string{"add", "--", p}
			case 1:
				u := fmt.Sprintf("u/user%02d.txt", round)
				r.write(u, "the user's new file\n")
				args = []string{"-c", "splitIndex.maxPercentChange=0", "add", "--", u}
			case 2:
				args = []string{"rm", "-q", "--cached", "--", p}
			case 3:
				args = []string{"update-index", "--split-index"}
			case 4:
				args = []string{"update-index", "--no-split-index"}
			case 5:
				args = []string{"update-index", "--index-version", fmt.Sprint(2 + rng.IntN(3))}
			case 6:
				args = []string{"update-index", "--skip-worktree", "--", p}
			}
			r.git(args...)
			log = append(log, fmt.Sprintf("git %v", args))
			if lock, err = Lock(r.indexPath()); err != nil {
				t.Fatal(err)
			}
			ix = read()
			want = r.gitLsDebug()
			if got := lsDebug(ix); got != want {
				t.Fatalf("%s\nread after git:\n%s\nwant:\n%s", strings.Join(log, "\n"), got, want)
			}
			model = sessionModel(slices.Collect(ix.All()))
		} else if rng.IntN(4) == 0 {
			// Now and then a new process: the shared index from its kept
			// scan (not this process's cache), and it goes on from there.
			if l := linkOf(t, r); l != nil {
				forgetSharedPath(ix.sharedPath(l.hash))
			}
			ix = read()
			log = append(log, "read again")
			if got := lsDebug(ix); got != want {
				t.Fatalf("%s\nread again:\n%s\nwant:\n%s", strings.Join(log, "\n"), got, want)
			}
		}
	}
	lock.Rollback()
	checkWithGit(t, r, model.lsDebug())
}

func paths(es []IndexEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Path)
	}
	return out
}
