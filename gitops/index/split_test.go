package index

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// lsDebug prints ix as `git ls-files --stage --debug` does, without git's
// in-memory flags.
func lsDebug(ix *Index) string {
	var b strings.Builder
	for e := range ix.All() {
		fmt.Fprintf(&b, "%06o %x %d\t%s\n  ctime: %d:%d\n  mtime: %d:%d\n  dev: %d\tino: %d\n  uid: %d\tgid: %d\n  size: %d\n",
			e.Mode, e.Hash, e.Stage, e.Path, e.Stat.CtimeSec, e.Stat.CtimeNsec, e.Stat.MtimeSec, e.Stat.MtimeNsec,
			e.Stat.Dev, e.Stat.Ino, e.Stat.UID, e.Stat.GID, e.Stat.Size)
	}
	return b.String()
}

var gitFlags = regexp.MustCompile(`\tflags: [0-9a-f]+\n`)

// gitLsDebug is git's view of the index, in lsDebug's format.
func (r *gitRepo) gitLsDebug() string {
	r.t.Helper()
	return gitFlags.ReplaceAllString(r.git("ls-files", "--stage", "--debug"), "\n")
}

// readAsGit reads the repository's index and fails unless its entries,
// stat data included, are git's.
func (r *gitRepo) readAsGit(t *testing.T) *Index {
	t.Helper()
	ix, err := ReadIndex(r.indexPath())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lsDebug(ix), r.gitLsDebug(); got != want {
		t.Fatalf("entries read:\n%s\ngit ls-files --stage --debug:\n%s", got, want)
	}
	return ix
}

// linkOf returns the link extension of the index file, nil without one.
func linkOf(t *testing.T, r *gitRepo) *idxLink {
	t.Helper()
	ix, err := readIndexFile(r.indexPath())
	if err != nil {
		t.Fatal(err)
	}
	if ix.link != nil {
		if err := ix.link.decode(1 << 20); err != nil {
			t.Fatal(err)
		}
	}
	return ix.link
}

// splitRepo is a repository of 30 committed files whose index git split.
func splitRepo(t *testing.T, version int) *gitRepo {
	r := newGitRepo(t)
	r.git("config", "splitIndex.maxPercentChange", "100") // keep changes in the small file
	for i := range 30 {
		r.write(fmt.Sprintf("d%d/f%02d.txt", i%3, i), fmt.Sprintf("file %d\n", i))
	}
	r.git("add", ".")
	r.git("commit", "-q", "-m", "base")
	r.git("update-index", "--index-version", fmt.Sprint(version))
	r.git("update-index", "--split-index")
	return r
}

// userChanges changes the index the way a user does: modify, add, remove,
// a conflict and an intent-to-add.
func userChanges(r *gitRepo) {
	r.write("d0/f00.txt", "changed\n")
	r.write("d1/f01.txt", "changed too\n")
	r.write("d2/new.txt", "new\n")
	r.write("a-first.txt", "sorted before everything\n")
	r.write("zz/intent.txt", "intent\n")
	r.git("add", "d0/f00.txt", "d1/f01.txt", "d2/new.txt", "a-first.txt")
	r.git("rm", "-q", "--cached", "d2/f02.txt", "d0/f03.txt")
	r.git("add", "-N", "zz/intent.txt")
	blob := strings.TrimSpace(r.git("hash-object", "-w", "d1/f04.txt"))
	cmd := fmt.Sprintf("0 %s\td1/f04.txt\n100644 %s 1\td1/f04.txt\n100644 %s 3\td1/f04.txt\n",
		strings.Repeat("0", 40), blob, blob)
	r.gitIn(cmd, "update-index", "--index-info")
}

func (r *gitRepo) gitIn(stdin string, args ...string) {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	cmd.Stdin = strings.NewReader(stdin)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestSplitIndexReadsWhatGitWrote(t *testing.T) {
	for _, version := range []int{2, 3, 4} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			r := splitRepo(t, version)
			r.readAsGit(t)
			userChanges(r)
			l := linkOf(t, r)
			if l == nil || len(l.delete) == 0 || len(l.replace) == 0 {
				t.Fatalf("git wrote link %+v: the test needs deletions and replacements", l)
			}
			ix := r.readAsGit(t)
			if !ix.Split() {
				t.Error("a split index read is not written back split")
			}
		})
	}
}

func TestSplitIndexRefusesAMissingSharedIndex(t *testing.T) {
	r := splitRepo(t, 2)
	l := linkOf(t, r)
	if err := os.Remove(filepath.Join(r.dir, ".git", fmt.Sprintf("sharedindex.%x", l.hash))); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, r.indexPath())
	_, err := ReadIndex(r.indexPath())
	if err == nil || !strings.Contains(err.Error(), "shared index") {
		t.Fatalf("ReadIndex = %v; want an error about the missing shared index", err)
	}
	if !bytes.Equal(readFile(t, r.indexPath()), before) {
		t.Error("the index changed")
	}
}

// checkWithGit checks that git reads the index as want, that git status,
// diff --cached and fsck agree with it, and that it stays so unsplit.
func checkWithGit(t *testing.T, r *gitRepo, want string) {
	t.Helper()
	if got := r.gitLsDebug(); got != want {
		t.Fatalf("git reads:\n%s\nwant:\n%s", got, want)
	}
	r.git("fsck", "--strict", "--no-progress")
	status := r.git("status", "--porcelain")
	cached := r.git("diff", "--cached", "--name-status")
	r.git("update-index", "--no-split-index")
	if got := r.git("status", "--porcelain"); got != status {
		t.Errorf("git status after --no-split-index = %q, before %q", got, status)
	}
	if got := r.git("diff", "--cached", "--name-status"); got != cached {
		t.Errorf("git diff --cached after --no-split-index = %q, before %q", got, cached)
	}
	if l := linkOf(t, r); l != nil {
		t.Errorf("git left a link after --no-split-index")
	}
}

func TestSplitIndexWriteKeepsItSplit(t *testing.T) {
	for _, version := range []int{2, 4} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			r := splitRepo(t, version)
			userChanges(r)
			shared := linkOf(t, r).hash
			r.write("d0/f00.txt", "ours\n")
			r.write("d2/f05.txt", "ours too\n")
			r.write("b-new.txt", "new of ours\n")
			r.update([]IndexEntry{r.entry("d0/f00.txt"), r.entry("d2/f05.txt"), r.entry("b-new.txt")}, []string{"d0/f06.txt"})
			l := linkOf(t, r)
			if l == nil || l.hash != shared {
				t.Fatalf("link after our write = %+v; want the same shared index %x", l, shared)
			}
			small, _ := os.Stat(r.indexPath())
			if small.Size() > 2000 {
				t.Errorf("the index file has %d bytes: not the small half", small.Size())
			}
			ix := r.readAsGit(t)
			want := lsDebug(ix)
			if !strings.Contains(want, "b-new.txt") || strings.Contains(want, "d0/f06.txt") {
				t.Fatalf("our changes are not in the index:\n%s", want)
			}
			if got := r.git("diff", "--cached", "--name-status", "HEAD", "--", "d0/f00.txt", "d2/f05.txt", "b-new.txt", "d0/f06.txt"); got != "M\td0/f00.txt\nA\tb-new.txt\nD\td0/f06.txt\nM\td2/f05.txt\n" && !strings.Contains(got, "b-new.txt") {
				t.Errorf("git diff --cached = %q", got)
			}
			// A user's git add between two of our writes stays.
			r.write("d1/f07.txt", "the user's\n")
			r.git("add", "d1/f07.txt")
			r.write("d2/f08.txt", "ours again\n")
			r.update([]IndexEntry{r.entry("d2/f08.txt")}, nil)
			got := r.git("diff", "--cached", "--name-only", "HEAD")
			for _, p := range []string{"d1/f07.txt", "d2/f08.txt", "b-new.txt", "d0/f00.txt"} {
				if !strings.Contains(got, p+"\n") {
					t.Errorf("%s lost from the index: git diff --cached says %q", p, got)
				}
			}
			checkWithGit(t, r, lsDebug(r.readAsGit(t)))
		})
	}
}

func TestSplitIndexStartsAndRenewsTheShared(t *testing.T) {
	r := committedRepo(t)
	lock, ix := lockAndRead(t, r)
	ix.SetSplit(true, 50)
	r.write("in/d.txt", "d\n")
	if err := ix.Update([]IndexEntry{r.entry("in/d.txt")}, nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteIndex(lock, ix); err != nil {
		t.Fatal(err)
	}
	first := linkOf(t, r)
	if first == nil {
		t.Fatal("SetSplit(true): no link written")
	}
	want := lsDebug(ix)
	if got := r.gitLsDebug(); got != want {
		t.Fatalf("git reads:\n%s\nwant:\n%s", got, want)
	}
	// Shared indexes nobody used for three weeks go when a new one is
	// written, as git's clean_shared_index_files does; one week stays.
	stale := filepath.Join(r.dir, ".git", "sharedindex."+strings.Repeat("1", 40))
	recent := filepath.Join(r.dir, ".git", "sharedindex."+strings.Repeat("2", 40))
	for p, age := range map[string]time.Duration{stale: 21 * 24 * time.Hour, recent: 7 * 24 * time.Hour} {
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-age)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	// 3 new entries of 7 is over 50%: a new shared index.
	var set []IndexEntry
	for _, p := range []string{"x/1.txt", "x/2.txt", "x/3.txt"} {
		r.write(p, p)
		set = append(set, r.entry(p))
	}
	r.update(set, nil)
	second := linkOf(t, r)
	if second == nil || second.hash == first.hash {
		t.Fatalf("link %+v after growing past the threshold; want a new shared index", second)
	}
	for _, l := range []*idxLink{first, second} {
		if _, err := os.Stat(filepath.Join(r.dir, ".git", fmt.Sprintf("sharedindex.%x", l.hash))); err != nil {
			t.Errorf("a shared index is gone: %v", err)
		}
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a shared index unused for three weeks was kept")
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("a shared index used a week ago was removed: %v", err)
	}
	// Clean where it should be: every entry's stat data is its file's
	// (diff-files does not refresh, so stale stat data would list it),
	// and git status shows exactly the entries added.
	if got := r.git("diff-files", "--name-only"); got != "" {
		t.Errorf("git diff-files lists %q: stat data that is not the file's", got)
	}
	if got, want := r.git("status", "--porcelain"), "A  in/d.txt\nA  x/1.txt\nA  x/2.txt\nA  x/3.txt\n"; got != want {
		t.Errorf("git status = %q, want %q", got, want)
	}
	checkWithGit(t, r, lsDebug(r.readAsGit(t)))
}

func TestParseExpiry(t *testing.T) {
	for v, want := range map[string]time.Duration{"": 0, "never": -1, "false": -1, "now": time.Nanosecond,
		"2.weeks.ago": 14 * 24 * time.Hour, "1.day.ago": 24 * time.Hour, "3.hours.ago": 3 * time.Hour, "last tuesday": -1} {
		if got := ParseExpiry(v); got != want {
			t.Errorf("ParseExpiry(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestEWAHRoundTrip(t *testing.T) {
	for _, pos := range [][]int{nil, {0}, {63}, {64}, {1, 2, 3, 200, 201, 5000}, {100000}} {
		b := ewahAppend(nil, pos)
		got, n, err := ewahRead(append(b, 9, 9), 1<<20)
		if err != nil || n != len(b) || !slices.Equal(got, pos) {
			t.Errorf("ewah %v: read back %v, %d of %d bytes, %v", pos, got, n, len(b), err)
		}
	}
	// git's empty bitmap: no bits, one marker word, the marker at 0.
	want := []byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if got := ewahAppend(nil, nil); !bytes.Equal(got, want) {
		t.Errorf("empty bitmap = %x", got)
	}
}

// An Index kept in memory and written twice (as the engine's session does)
// keeps the smudge of a racily clean entry: the second write, comparing with
// the newer mtime of the first one's file, no longer finds it racy.
func TestIndexKeepsRacySmudgeOnTheNextWrite(t *testing.T) {
	for _, split := range []bool{false, true} {
		t.Run(fmt.Sprintf("split=%v", split), func(t *testing.T) {
			r := newGitRepo(t)
			r.write("racy.txt", "before\n")
			r.write("other.txt", "other\n")
			r.git("add", ".")
			racyChange(t, r, "racy.txt", "after!\n")
			lock, ix := lockAndRead(t, r)
			ix.SetSplit(split, 100)
			for _, name := range []string{"one.txt", "two.txt"} {
				r.write(name, name)
				if err := ix.Update([]IndexEntry{r.entry(name)}, nil); err != nil {
					t.Fatal(err)
				}
				if err := WriteIndex(lock, ix); err != nil {
					t.Fatal(err)
				}
				if got := r.git("diff", "--name-only"); got != "racy.txt\n" {
					t.Fatalf("after writing %s: git diff --name-only = %q, want racy.txt modified", name, got)
				}
				var err error
				if lock, err = Lock(r.indexPath()); err != nil {
					t.Fatal(err)
				}
			}
			lock.Rollback()
		})
	}
}

// A shared index that is truncated, garbage, another index under the
// linked name, or missing is refused with an error that names it and says
// what to do, and nothing is changed: not the index, not the shared file,
// no lock left.
func TestSplitIndexRefusesADamagedSharedIndex(t *testing.T) {
	for _, tc := range []struct {
		name, what string
		edit       func(t *testing.T, shared string, data []byte)
	}{
		{"truncated", "damaged", func(t *testing.T, shared string, data []byte) {
			if err := os.WriteFile(shared, data[:len(data)/2], 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"garbage", "damaged", func(t *testing.T, shared string, data []byte) {
			if err := os.WriteFile(shared, bytes.Repeat([]byte("garbage!"), len(data)/8), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"a valid index of other entries", "holds another index", func(t *testing.T, shared string, data []byte) {
			other := committedRepo(t)
			if err := os.WriteFile(shared, readFile(t, other.indexPath()), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"itself split", "itself split", func(t *testing.T, shared string, data []byte) {
			other := splitRepo(t, 2)
			if err := os.WriteFile(shared, readFile(t, other.indexPath()), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"missing", "missing", func(t *testing.T, shared string, data []byte) {
			if err := os.Remove(shared); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := splitRepo(t, 2)
			userChanges(r)
			shared := filepath.Join(r.dir, ".git", fmt.Sprintf("sharedindex.%x", linkOf(t, r).hash))
			tc.edit(t, shared, readFile(t, shared))
			before := snapshotGitDir(t, r)
			lock, err := Lock(r.indexPath())
			if err != nil {
				t.Fatal(err)
			}
			ix, err := ReadIndex(r.indexPath())
			lock.Rollback()
			var ue *UnsupportedIndexError
			if !errors.As(err, &ue) {
				t.Fatalf("ReadIndex = %v, %v; want *UnsupportedIndexError", ix, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, r.indexPath()) || !strings.Contains(msg, filepath.Base(shared)) || !strings.Contains(msg, tc.what) || ue.Hint() == "" {
				t.Errorf("error %q (hint %q) should name the index, %s and %q, and say what to do", msg, ue.Hint(), filepath.Base(shared), tc.what)
			}
			if after := snapshotGitDir(t, r); !maps.Equal(after, before) {
				t.Errorf("the git directory changed:\nbefore %v\nafter  %v", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
			}
		})
	}
}

// snapshotGitDir is the content of every file directly in the repository's
// git directory (the index, its lock, the shared indexes).
func snapshotGitDir(t *testing.T, r *gitRepo) map[string]string {
	t.Helper()
	des, err := os.ReadDir(filepath.Join(r.dir, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, de := range des {
		if de.Type().IsRegular() {
			out[de.Name()] = string(readFile(t, filepath.Join(r.dir, ".git", de.Name())))
		}
	}
	return out
}

// The shared index the index file links to is never expired by the write
// that replaces it, however old its mtime: git freshens it when it reads
// the index, and until the new index file is committed the old link is the
// one on disk.
func TestSplitIndexKeepsTheLinkedSharedIndex(t *testing.T) {
	t.Parallel()
	r := splitRepo(t, 2)
	r.git("config", "splitIndex.sharedIndexExpire", "1.day.ago")
	old := filepath.Join(r.dir, ".git", fmt.Sprintf("sharedindex.%x", linkOf(t, r).hash))
	weeks := time.Now().Add(-21 * 24 * time.Hour)
	if err := os.Chtimes(old, weeks, weeks); err != nil {
		t.Fatal(err)
	}
	lock, ix := lockAndRead(t, r)
	ix.SetSplit(true, 0) // 0: a new shared index at every write
	ix.SetSharedExpire(ParseExpiry("1.day.ago"))
	r.write("d0/f00.txt", "ours\n")
	if err := ix.Update([]IndexEntry{r.entry("d0/f00.txt")}, nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteIndex(lock, ix); err != nil {
		t.Fatal(err)
	}
	if l := linkOf(t, r); fmt.Sprintf("sharedindex.%x", l.hash) == filepath.Base(old) {
		t.Fatal("no new shared index was written")
	}
	if _, err := os.Stat(old); err != nil {
		t.Errorf("the shared index the index linked to was removed: %v", err)
	}
	checkWithGit(t, r, lsDebug(r.readAsGit(t)))
}
