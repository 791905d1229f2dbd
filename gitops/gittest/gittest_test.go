package gittest

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// New copies what git init wrote once: the copy must be what git init
// makes in that folder, every file and folder with its mode and bytes, and
// git must take it as a repository of its own.
func TestNewIsWhatGitInitMakes(t *testing.T) {
	t.Parallel()
	for range 2 { // the first New runs git init, the second copies
		sameAsGitInit(t, New(t))
	}
}

// Another configuration, another repository: objects named by SHA-256
// (GIT_DEFAULT_HASH), then a template folder of one's own (init.templateDir)
// under a HOME of one's own.
func TestNewFollowsTheConfiguration(t *testing.T) {
	home := Isolate(t)
	t.Setenv("GIT_DEFAULT_HASH", "sha256")
	for range 2 {
		r := sameAsGitInit(t, New(t))
		if f := r.Git("rev-parse", "--show-object-format"); f != "sha256\n" {
			t.Errorf("object format %q, want sha256", f)
		}
	}
	os.Unsetenv("GIT_DEFAULT_HASH") // t.Setenv puts it back afterwards
	tmpl := filepath.Join(home, "tmpl")
	os.MkdirAll(filepath.Join(tmpl, "info"), 0o777)
	if err := os.WriteFile(filepath.Join(tmpl, "info", "exclude"), []byte("*.tmp\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	conf := "[user]\n\tname = T\n\temail = t@example.com\n[init]\n\ttemplateDir = " + filepath.ToSlash(tmpl) + "\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(conf), 0o666); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		r := sameAsGitInit(t, New(t))
		if s := r.MustRead(".git/info/exclude"); s != "*.tmp\n" {
			t.Errorf("info/exclude %q, want the template's", s)
		}
	}
}

func sameAsGitInit(t *testing.T, r *Repo) *Repo {
	t.Helper()
	fresh := t.TempDir()
	cmd := exec.Command("git", "init", "-q", "-b", "main")
	cmd.Dir = fresh
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	want, got := tree(t, filepath.Join(fresh, ".git")), tree(t, filepath.Join(r.Dir, ".git"))
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %q, git init makes %q", p, got[p], w)
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s (%q): git init makes no such file", p, g)
		}
	}
	if top := r.Git("rev-parse", "--show-toplevel"); filepath.Clean(strings.TrimSpace(top)) != r.Dir {
		t.Errorf("git rev-parse --show-toplevel: %q, want %q", top, r.Dir)
	}
	r.Write("a.txt", "a\n")
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "first")
	r.AssertClean()
	r.Fsck()
	if b := r.Git("symbolic-ref", "HEAD"); b != "refs/heads/main\n" {
		t.Errorf("HEAD is %q", b)
	}
	return r
}

// tree maps each path under dir to its mode and, for a file, its bytes.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		m[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A snapshot sees a lock file in the repository's common folder, also from
// a linked worktree (whose git folder is not the common one), and the
// index of the worktree's own git folder.
func TestSnapshotSeesLocksAndTheIndex(t *testing.T) {
	t.Parallel()
	r := NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	wt := filepath.Join(t.TempDir(), "wt")
	r.Git("worktree", "add", "-q", "-b", "side", wt)
	for _, dir := range []string{r.Dir, wt} {
		before, err := TakeSnapshot(dir)
		if err != nil {
			t.Fatal(err)
		}
		if before.Index == "" {
			t.Errorf("%s: the snapshot holds no index", dir)
		}
		lock := filepath.Join(r.Dir, ".git", "refs", "heads", "main.lock")
		if err := os.WriteFile(lock, nil, 0o666); err != nil {
			t.Fatal(err)
		}
		after, err := TakeSnapshot(dir)
		os.Remove(lock)
		if err != nil {
			t.Fatal(err)
		}
		if d := before.Diff(after, true); len(d) != 1 || !strings.HasPrefix(d[0], "lock files: ") {
			t.Errorf("%s: a lock file taken after the snapshot: %q", dir, d)
		}
	}
}

// FsckArgs leaves out fsck's commit-graph and multi-pack-index checks only
// where there is no such file: a damaged object is still found, and so is
// a damaged commit graph once there is one.
func TestFsckArgsCheckWhatThereIs(t *testing.T) {
	t.Parallel()
	fsck := func(r *Repo) error {
		out, err := r.GitErr(FsckArgs(r.Dir)...)
		if err == nil && strings.TrimSpace(out) != "" {
			return errors.New(out)
		}
		return err
	}
	r := NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	if args := FsckArgs(r.Dir); args[0] != "-c" {
		t.Errorf("no commit graph: %q, want the verify children switched off", args)
	}
	if err := fsck(r); err != nil {
		t.Fatalf("a sound repository: %v", err)
	}
	blob := filepath.Join(r.Dir, ".git", "objects", strings.TrimSpace(r.Git("rev-parse", "HEAD:a.txt"))[:2],
		strings.TrimSpace(r.Git("rev-parse", "HEAD:a.txt"))[2:])
	os.Chmod(blob, 0o666)
	if err := os.WriteFile(blob, []byte("not an object"), 0o666); err != nil {
		t.Fatal(err)
	}
	if fsck(r) == nil {
		t.Error("fsck passed a damaged object")
	}

	g := NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	g.Git("commit-graph", "write", "--reachable")
	if args := FsckArgs(g.Dir); args[0] != "fsck" {
		t.Errorf("with a commit graph: %q, want git's own checks", args)
	}
	if err := fsck(g); err != nil {
		t.Fatalf("a sound commit graph: %v", err)
	}
	cg := filepath.Join(g.Dir, ".git", "objects", "info", "commit-graph")
	b, err := os.ReadFile(cg)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 0xff // its checksum
	os.Chmod(cg, 0o666)
	if err := os.WriteFile(cg, b, 0o666); err != nil {
		t.Fatal(err)
	}
	if fsck(g) == nil {
		t.Error("fsck passed a damaged commit graph")
	}
}
