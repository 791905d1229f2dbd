package gitops

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// gitRepo is a repository made with the git CLI in a temporary directory.
// git is the judge of what the index code writes.
type gitRepo struct {
	t   testing.TB
	dir string
	env []string
}

func newGitRepo(t testing.TB) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("these tests need the git CLI: %v", err)
	}
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_CONFIG_NOSYSTEM=1", "HOME="+home, "XDG_CONFIG_HOME="+home,
		"GIT_AUTHOR_NAME=Ann Author", "GIT_AUTHOR_EMAIL=ann@example.com",
		"GIT_COMMITTER_NAME=Ann Author", "GIT_COMMITTER_EMAIL=ann@example.com")
	r := &gitRepo{t: t, dir: t.TempDir(), env: env}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *gitRepo) run(env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(slices.Clone(r.env), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	out, err := r.run(nil, args...)
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (r *gitRepo) indexPath() string { return filepath.Join(r.dir, ".git", "index") }

// write writes a file dated an hour ago, so that git's index is never racy
// with it unless a test wants that.
func (r *gitRepo) write(rel, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		r.t.Fatal(err)
	}
}

// entry stores rel's content as a blob and returns the index entry for it,
// with its stat data: the caller's side of Update's contract.
func (r *gitRepo) entry(rel string) IndexEntry {
	r.t.Helper()
	h := strings.TrimSpace(r.git("hash-object", "-w", "--", rel))
	fi, err := os.Lstat(filepath.Join(r.dir, rel))
	if err != nil {
		r.t.Fatal(err)
	}
	e := IndexEntry{Path: rel, Mode: 0o100644, Stat: StatOf(fi)}
	if fi.Mode()&0o100 != 0 {
		e.Mode = 0o100755
	}
	if n, err := hex.Decode(e.Hash[:], []byte(h)); err != nil || n != 20 {
		r.t.Fatalf("hash-object said %q: %v", h, err)
	}
	return e
}

// update runs the whole protocol: lock, read, Update, write.
func (r *gitRepo) update(set []IndexEntry, remove []string) {
	r.t.Helper()
	lock, err := Lock(r.indexPath())
	if err != nil {
		r.t.Fatal(err)
	}
	defer lock.Rollback()
	ix, err := ReadIndex(r.indexPath())
	if err != nil {
		r.t.Fatal(err)
	}
	if err := ix.Update(set, remove); err != nil {
		r.t.Fatal(err)
	}
	if err := WriteIndex(lock, ix); err != nil {
		r.t.Fatal(err)
	}
}

// expectedTree is the tree git itself writes for the work tree, from an
// index of its own without a cache tree.
func (r *gitRepo) expectedTree() string {
	r.t.Helper()
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(r.t.TempDir(), "index")}
	for _, args := range [][]string{{"add", "-A"}, {"write-tree"}} {
		out, err := r.run(env, args...)
		if err != nil {
			r.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		if args[0] == "write-tree" {
			return strings.TrimSpace(out)
		}
	}
	panic("unreachable")
}

func readFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// roundTrip checks that reading and writing without changes reproduces the
// file byte for byte.
func roundTrip(t *testing.T, path string) *Index {
	t.Helper()
	ix, err := ReadIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if want := readFile(t, path); !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("round trip changed the index: %d bytes written, %d read; first difference at byte %d",
			buf.Len(), len(want), firstDiff(buf.Bytes(), want))
	}
	return ix
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func hasExt(ix *Index, sig string) bool {
	return slices.ContainsFunc(ix.exts, func(x idxExt) bool { return x.sig == sig })
}

// treeNode finds the cache-tree node for dir ("" is the root).
func treeNode(t *testing.T, ix *Index, dir string) *idxTree {
	t.Helper()
	var tr *idxTree
	for _, x := range ix.exts {
		if x.sig == "TREE" {
			var ok bool
			if tr, _, ok = idxParseTree(x.data); !ok {
				t.Fatal("TREE extension does not parse")
			}
		}
	}
	if tr == nil {
		t.Fatal("no TREE extension")
	}
	if dir == "" {
		return tr
	}
	for c := range strings.SplitSeq(dir, "/") {
		i := slices.IndexFunc(tr.subs, func(s *idxTree) bool { return string(s.name) == c })
		if i < 0 {
			return nil
		}
		tr = tr.subs[i]
	}
	return tr
}

func TestIndexUpdateJudgedByGit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version int
		prepare []string // git update-index arguments run after the commit
	}{
		{"v2", 2, nil},
		{"v3", 3, []string{"--skip-worktree", "keep/e.txt"}},
		{"v4", 4, []string{"--index-version", "4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newGitRepo(t)
			for _, f := range []string{"a.txt", "dir/b.txt", "dir/sub/c.txt", "dir/sub/c2.txt", "other/d.txt", "keep/e.txt", "keep/f.txt", "zz/y.txt"} {
				r.write(f, "content of "+f+"\n")
			}
			r.git("add", ".")
			r.git("commit", "-q", "-m", "base") // writes the cache tree
			if tc.prepare != nil {
				r.git(append([]string{"update-index"}, tc.prepare...)...)
			}
			before := roundTrip(t, r.indexPath())
			if ix := before; ix.Version() != tc.version || !hasExt(ix, "TREE") {
				t.Fatalf("git wrote version %d, TREE %v; the test needs version %d with TREE", ix.Version(), hasExt(ix, "TREE"), tc.version)
			}

			r.write("dir/b.txt", "changed\n")
			r.write("dir/new.txt", "new\n")
			r.write("z.txt", "new at the end\n")
			r.write("a.txt", "content of a.txt\n") // rewritten with the committed content
			if err := os.Remove(filepath.Join(r.dir, "other/d.txt")); err != nil {
				t.Fatal(err)
			}
			r.update([]IndexEntry{r.entry("dir/b.txt"), r.entry("dir/new.txt"), r.entry("z.txt"), r.entry("a.txt")},
				[]string{"other/d.txt"})

			// Read back before any git command: git status and write-tree
			// refresh the index and its cache tree.
			ix, err := ReadIndex(r.indexPath())
			if err != nil {
				t.Fatal(err)
			}
			if ix.Version() != tc.version {
				t.Errorf("version %d after the write, want %d", ix.Version(), tc.version)
			}
			// Untouched directories keep their cached trees; the
			// touched ones lost theirs.
			for _, dir := range []string{"", "dir", "other"} {
				if n := treeNode(t, ix, dir); n == nil || n.count != -1 {
					t.Errorf("cache tree of %q still valid after a change under it", dir)
				}
			}
			for _, dir := range []string{"dir/sub", "keep", "zz"} {
				if b := treeNode(t, before, dir); b == nil || b.count < 0 {
					if dir != "keep" { // git update-index --skip-worktree invalidates keep
						t.Fatalf("git left %q invalid in the cache tree; the test needs it valid", dir)
					}
					continue
				}
				n := treeNode(t, ix, dir)
				if n == nil || n.count < 0 || fmt.Sprintf("%x", n.hash) != strings.TrimSpace(r.git("rev-parse", "HEAD:"+dir)) {
					t.Errorf("cache tree of untouched %q lost or wrong: %+v", dir, n)
				}
			}
			if tc.version == 3 {
				if e, _ := ix.Entry("keep/e.txt"); !e.SkipWorktree {
					t.Errorf("skip-worktree bit lost: %+v", e)
				}
			}
			want := r.entry("dir/b.txt")
			if got, ok := ix.Entry("dir/b.txt"); !ok || got != want {
				t.Errorf("Entry(dir/b.txt) = %+v, %v; want %+v", got, ok, want)
			}
			if _, ok := ix.Entry("other/d.txt"); ok {
				t.Error("removed entry still there")
			}

			if got, want := r.git("status", "--porcelain"), "M  dir/b.txt\nA  dir/new.txt\nD  other/d.txt\nA  z.txt\n"; got != want {
				t.Errorf("git status --porcelain:\n%s\nwant:\n%s", got, want)
			}
			r.git("diff", "--cached", "--exit-code", "--", "a.txt")
			if got, want := strings.TrimSpace(r.git("write-tree")), r.expectedTree(); got != want {
				t.Errorf("git write-tree = %s, want %s: the cache tree was not invalidated", got, want)
			}
			r.git("ls-files", "-s", "--debug")
			r.git("fsck", "--strict", "--no-progress")

			r.git("commit", "-q", "-m", "step")
			if got := r.git("status", "--porcelain"); got != "" {
				t.Errorf("git status after commit:\n%s", got)
			}
		})
	}
}

func TestIndexSmudgesRacyEntries(t *testing.T) {
	r := newGitRepo(t)
	// ctime changes with every write; with it git would notice the change
	// below by itself and the test could not fail.
	r.git("config", "core.trustctime", "false")
	r.write("racy.txt", "before\n")
	r.write("given.txt", "given\n")
	r.write("calm.txt", "calm\n")
	p := func(rel string) string { return filepath.Join(r.dir, rel) }
	fi, err := os.Lstat(p("racy.txt"))
	if err != nil {
		t.Fatal(err)
	}
	T := fi.ModTime()
	if err := os.Chtimes(p("calm.txt"), T.Add(-time.Minute), T.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	r.git("add", ".")
	// As if git had written the index in the same second as racy.txt and
	// given.txt, and racy.txt then changed within that second, same size.
	if err := os.Chtimes(r.indexPath(), T, T); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p("racy.txt"), []byte("after!\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p("racy.txt"), T, T); err != nil {
		t.Fatal(err)
	}

	r.update([]IndexEntry{r.entry("given.txt")}, nil)

	ix, err := ReadIndex(r.indexPath())
	if err != nil {
		t.Fatal(err)
	}
	if sec, _ := ix.MTime(); int64(sec) <= T.Unix() {
		t.Fatalf("new index mtime %d not after %d: the test would prove nothing", sec, T.Unix())
	}
	for path, size := range map[string]uint32{"racy.txt": 0, "given.txt": 6, "calm.txt": 5} {
		if e, _ := ix.Entry(path); e.Stat.Size != size {
			t.Errorf("%s: size %d in the index, want %d", path, e.Stat.Size, size)
		}
	}
	if got := r.git("diff", "--name-only"); got != "racy.txt\n" {
		t.Errorf("git diff --name-only = %q, want racy.txt modified", got)
	}
}
