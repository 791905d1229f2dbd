// Package gittest makes real git repositories in temporary folders for
// tests, drives them with the git CLI and judges them with it: git, not our
// own reader, says whether what autocoder wrote is right. Snapshot and
// AssertUnchanged prove that a failed operation left no trace.
package gittest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Repo is a repository under test.
type Repo struct {
	T   testing.TB
	Dir string
}

// Isolate gives the test its own HOME with a git identity, and keeps the
// machine's git configuration out. Call it once per test before New. It
// sets the environment (t.Setenv), so the test cannot be parallel: a test
// that needs no HOME of its own calls t.Parallel instead, in a package
// whose TestMain runs Main.
func Isolate(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	if st, ok := t.(interface{ Setenv(string, string) }); ok {
		isolate(home, func(k, v string) {
			st.Setenv(k, v)
			if v == "" {
				os.Unsetenv(k)
			}
		})
	}
	writeIdentity(home)
	return home
}

// Main isolates the whole test binary as Isolate does one test (a HOME of
// its own with a git identity, the machine's git configuration kept out),
// runs the tests and removes that HOME: call it from TestMain, as
// os.Exit(gittest.Main(m)). Tests then share the one identity and may run
// in parallel; a test that needs a HOME of its own still calls Isolate.
func Main(m interface{ Run() int }) int {
	home, err := os.MkdirTemp("", "gittest-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gittest:", err)
		return 1
	}
	defer os.RemoveAll(home)
	isolate(home, func(k, v string) {
		if v == "" {
			os.Unsetenv(k)
		} else {
			os.Setenv(k, v)
		}
	})
	writeIdentity(home)
	return m.Run()
}

// isolate sets (or, to "", unsets) with set the variables that make home
// the only git configuration a test sees.
func isolate(home string, set func(k, v string)) {
	// Go's own folders stay where they are: a test that runs the go
	// command (go list) must not start from an empty module and build
	// cache, and without the user's go env settings, under the new HOME.
	if h, err := os.UserHomeDir(); err == nil && os.Getenv("GOPATH") == "" {
		set("GOPATH", filepath.Join(h, "go"))
	}
	if c, err := os.UserCacheDir(); err == nil && os.Getenv("GOCACHE") == "" {
		set("GOCACHE", filepath.Join(c, "go-build"))
	}
	if c, err := os.UserConfigDir(); err == nil && os.Getenv("GOENV") == "" {
		set("GOENV", filepath.Join(c, "go", "env"))
	}
	set("HOME", home)
	set("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	set("XDG_STATE_HOME", filepath.Join(home, ".local", "state")) // autocoder trust's records
	set("GIT_CONFIG_NOSYSTEM", "1")
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
		"GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"} {
		set(v, "")
	}
}

func writeIdentity(home string) {
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"), 0o666)
}

// New makes an empty repository (no commit yet) in a temporary folder:
// what `git init -q -b main` makes there, byte for byte.
func New(t testing.TB) *Repo {
	t.Helper()
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	r := &Repo{T: t, Dir: dir}
	if err := initRepo(dir); err != nil {
		t.Fatal(err)
	}
	return r
}

// A test suite makes hundreds of repositories, and a git process costs
// more than the files it writes (a test's time goes to starting
// processes): git init runs once per configuration, into a folder that is
// read and removed at once, and each repository gets a copy of what it
// wrote. TestNewIsWhatGitInitMakes holds the copy to a fresh git init.
var (
	skeletonsMu sync.Mutex
	skeletons   = map[string][]skeletonFile{}
)

type skeletonFile struct {
	rel  string // slash-separated, under .git ("." for .git)
	mode fs.FileMode
	data []byte
}

// initRepo writes into dir what `git init -q -b main` writes there.
func initRepo(dir string) error {
	files, err := skeleton()
	if err != nil {
		return err
	}
	if files == nil { // a configuration that is not kept: git init itself
		cmd := exec.Command("git", "init", "-q", "-b", "main")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git init: %v\n%s", err, out)
		}
		return nil
	}
	for _, f := range files {
		p := filepath.Join(dir, ".git", filepath.FromSlash(f.rel))
		if f.mode.IsDir() {
			err = os.MkdirAll(p, f.mode.Perm())
		} else {
			err = os.WriteFile(p, f.data, f.mode.Perm())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// skeleton is what git init writes under the configuration the
// environment selects now, made on first use; nil when that configuration
// is not kept. The key is everything that changes git init's output: the
// global configuration files (templates, object format, ...), read as
// text, and the variables that override them. A configuration that
// includes other files or names a template folder is not kept (the same
// text may mean other files under another HOME), and neither is one
// where ~/.gitconfig cannot be read or GIT_CONFIG_GLOBAL names another.
func skeleton() ([]skeletonFile, error) {
	home := os.Getenv("HOME")
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(home, ".config")
	}
	if os.Getenv("GIT_CONFIG_GLOBAL") != "" {
		return nil, nil
	}
	var key []string
	for _, p := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(xdg, "git", "config")} {
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if l := strings.ToLower(string(b)); strings.Contains(l, "include") || strings.Contains(l, "template") {
			return nil, nil
		}
		key = append(key, string(b))
	}
	for _, v := range []string{"GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_SYSTEM", "GIT_TEMPLATE_DIR",
		"GIT_DEFAULT_HASH", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "TMPDIR"} {
		key = append(key, v+"="+os.Getenv(v))
	}
	k := strings.Join(key, "\x00")
	skeletonsMu.Lock()
	defer skeletonsMu.Unlock()
	if files, ok := skeletons[k]; ok {
		return files, nil
	}
	tmp, err := os.MkdirTemp("", "gittest-init-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("git", "init", "-q", "-b", "main")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git init: %v\n%s", err, out)
	}
	var files []skeletonFile
	root := filepath.Join(tmp, ".git")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p) // "." for .git itself
		fi, err := d.Info()
		if err != nil {
			return err
		}
		f := skeletonFile{rel: filepath.ToSlash(rel), mode: fi.Mode()}
		if !d.IsDir() {
			if !fi.Mode().IsRegular() {
				return fmt.Errorf("git init made %s, neither a file nor a folder", rel)
			}
			if f.data, err = os.ReadFile(p); err != nil {
				return err
			}
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	skeletons[k] = files
	return files, nil
}

// NewWithCommit makes a repository with one commit holding files.
func NewWithCommit(t testing.TB, files map[string]string) *Repo {
	t.Helper()
	r := New(t)
	for p, c := range files {
		r.Write(p, c)
	}
	r.Git("add", "-A")
	// Without maintenance.auto=false, every commit starts a second git
	// process (git maintenance run --auto) that finds nothing to do in a
	// repository this small.
	r.Git("-c", "maintenance.auto=false", "commit", "-q", "-m", "initial")
	return r
}

// Git runs git in the repository and fails the test if it fails.
func (r *Repo) Git(args ...string) string {
	r.T.Helper()
	out, err := r.GitErr(args...)
	if err != nil {
		r.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// GitErr runs git and returns its combined output and error.
func (r *Repo) GitErr(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// GitIn runs git with stdin as its standard input and fails the test if it
// fails; it returns the standard output.
func (r *Repo) GitIn(stdin string, args ...string) string {
	r.T.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		r.T.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// Write writes a file (making folders), relative to the root.
func (r *Repo) Write(rel, content string) {
	r.T.Helper()
	p := filepath.Join(r.Dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		r.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
		r.T.Fatal(err)
	}
}

// Read reads a file relative to the root; "" with ok false if missing.
func (r *Repo) Read(rel string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(r.Dir, filepath.FromSlash(rel)))
	return string(b), err == nil
}

// MustRead reads a file and fails the test when it is missing.
func (r *Repo) MustRead(rel string) string {
	r.T.Helper()
	s, ok := r.Read(rel)
	if !ok {
		r.T.Fatalf("%s does not exist", rel)
	}
	return s
}

// Status is `git status --porcelain` (untracked files included).
func (r *Repo) Status() string {
	r.T.Helper()
	// --no-optional-locks: a plain status refreshes and rewrites the index,
	// which would make a snapshot change what it observes.
	return r.Git("--no-optional-locks", "status", "--porcelain", "--untracked-files=all")
}

// AssertClean fails unless git status shows nothing.
func (r *Repo) AssertClean() {
	r.T.Helper()
	if s := r.Status(); s != "" {
		r.T.Fatalf("git status is not clean:\n%s", s)
	}
}

// Fsck fails unless `git fsck --strict` is silent and succeeds. Dangling
// objects are not errors: a failed step may leave the objects it wrote
// before it failed, unreferenced, as git itself does; git gc prunes them.
func (r *Repo) Fsck() {
	r.T.Helper()
	out, err := r.GitErr(FsckArgs(r.Dir)...)
	if err != nil || strings.TrimSpace(out) != "" {
		r.T.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
}

// FsckArgs is the git command line (without "git") of a strict fsck of the
// repository whose worktree is dir, dangling objects not reported. git
// fsck starts `git commit-graph verify` and `git multi-pack-index verify`
// whether or not the repository has either file; when dir/.git is a folder
// with neither (and no alternates, whose files fsck would verify too), the
// two are switched off: there is nothing for them to verify, and two
// processes fewer per check add up over a test suite.
func FsckArgs(dir string) []string {
	args := []string{"fsck", "--strict", "--no-progress", "--no-dangling"}
	objects := filepath.Join(dir, ".git", "objects")
	if fi, err := os.Stat(objects); err != nil || !fi.IsDir() {
		return args
	}
	for _, p := range []string{"info/commit-graph", "info/commit-graphs", "pack/multi-pack-index", "info/alternates"} {
		if _, err := os.Lstat(filepath.Join(objects, filepath.FromSlash(p))); !errors.Is(err, fs.ErrNotExist) {
			return args
		}
	}
	return append([]string{"-c", "core.commitGraph=false", "-c", "core.multiPackIndex=false"}, args...)
}

// Snapshot is everything a failed operation must leave as it was: every
// worktree file's bytes and mode, the raw index, HEAD and every ref, and git
// status.
type Snapshot struct {
	Files  map[string]string // path -> mode + sha256
	Index  string            // sha256 of .git/index, or "" when absent
	Stage  string            // git ls-files -s: the index's entries without stat data
	HEAD   string
	Refs   string
	Status string
	Locks  []string // *.lock files under .git
}

// Snapshot takes a snapshot.
func (r *Repo) Snapshot() Snapshot {
	r.T.Helper()
	s, err := TakeSnapshot(r.Dir)
	if err != nil {
		r.T.Fatal(err)
	}
	return s
}

// TakeSnapshot takes a snapshot of the repository whose worktree is dir.
func TakeSnapshot(dir string) (Snapshot, error) {
	s := Snapshot{Files: map[string]string{}}
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"--no-optional-locks"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			if rel != "." {
				s.Files[rel+"/"] = "dir"
			}
			return nil
		}
		fi, _ := os.Lstat(p)
		var data []byte
		if fi.Mode()&os.ModeSymlink != 0 {
			t, _ := os.Readlink(p)
			data = []byte("link:" + t)
		} else {
			data, _ = os.ReadFile(p)
		}
		sum := sha256.Sum256(data)
		s.Files[rel] = fmt.Sprintf("%v %x", fi.Mode(), sum)
		return nil
	})
	gitDir, common, err := gitDirs(dir, git)
	if err != nil {
		return s, err
	}
	if b, err := os.ReadFile(filepath.Join(gitDir, "index")); err == nil {
		s.Index = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	s.Stage, _ = git("ls-files", "-s")
	h, _ := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	s.HEAD = string(h)
	s.Refs, _ = git("for-each-ref", "--format=%(refname) %(objectname)")
	if s.Status, err = git("status", "--porcelain", "--untracked-files=all"); err != nil {
		return s, err
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	filepath.WalkDir(common, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
			s.Locks = append(s.Locks, p)
		}
		return nil
	})
	sort.Strings(s.Locks)
	return s, nil
}

// gitDirs returns the git folder of the worktree dir and the common one
// (they differ in a linked worktree). A snapshot is taken before and after
// every operation a test checks, so it spares a git process where it can:
// where dir/.git is a folder without a commondir file (a repository's own
// worktree, the usual case) both are that folder, as git finds them;
// anywhere else (a .git file, a subfolder) one git rev-parse answers both.
func gitDirs(dir string, git func(...string) (string, error)) (gitDir, common string, err error) {
	d := filepath.Join(dir, ".git")
	if fi, err := os.Lstat(d); err == nil && fi.IsDir() && filepath.IsAbs(d) {
		if _, err := os.Lstat(filepath.Join(d, "commondir")); errors.Is(err, fs.ErrNotExist) {
			return d, d, nil
		}
	}
	dirs, err := git("rev-parse", "--absolute-git-dir", "--git-common-dir")
	if err != nil {
		return "", "", err
	}
	gitDir, common, _ = strings.Cut(strings.TrimSpace(dirs), "\n")
	return gitDir, common, nil
}

// AssertUnchanged fails when anything differs from before, the index
// byte for byte.
func (r *Repo) AssertUnchanged(before Snapshot) {
	r.T.Helper()
	r.assertSame(before, true)
}

// AssertRestored fails when anything differs from before, except the stat
// data of index entries: after a rollback that rewrote files, their entries
// must carry the new stat data (git would re-hash them otherwise).
func (r *Repo) AssertRestored(before Snapshot) {
	r.T.Helper()
	r.assertSame(before, false)
}

func (r *Repo) assertSame(before Snapshot, rawIndex bool) {
	r.T.Helper()
	if diffs := before.Diff(r.Snapshot(), rawIndex); len(diffs) > 0 {
		r.T.Fatalf("the repository changed:\n%s", strings.Join(diffs, "\n"))
	}
}

// Diff lists what differs between two snapshots; rawIndex compares the
// index file byte for byte, not only its entries.
func (before Snapshot) Diff(after Snapshot, rawIndex bool) []string {
	var diffs []string
	for p, v := range before.Files {
		if after.Files[p] != v {
			diffs = append(diffs, fmt.Sprintf("file %s: %q -> %q", p, v, after.Files[p]))
		}
	}
	for p, v := range after.Files {
		if _, ok := before.Files[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("new file %s (%s)", p, v))
		}
	}
	if rawIndex && before.Index != after.Index {
		diffs = append(diffs, "the index file changed")
	}
	if before.Stage != after.Stage {
		diffs = append(diffs, fmt.Sprintf("index entries:\n%s->\n%s", before.Stage, after.Stage))
	}
	if before.HEAD != after.HEAD {
		diffs = append(diffs, fmt.Sprintf("HEAD: %q -> %q", before.HEAD, after.HEAD))
	}
	if before.Refs != after.Refs {
		diffs = append(diffs, fmt.Sprintf("refs:\n%s->\n%s", before.Refs, after.Refs))
	}
	if before.Status != after.Status {
		diffs = append(diffs, fmt.Sprintf("status:\n%s->\n%s", before.Status, after.Status))
	}
	if strings.Join(before.Locks, ",") != strings.Join(after.Locks, ",") {
		diffs = append(diffs, fmt.Sprintf("lock files: %v -> %v", before.Locks, after.Locks))
	}
	return diffs
}

// Bytes reads a file's raw bytes (for CRLF and BOM checks).
func (r *Repo) Bytes(rel string) []byte {
	b, _ := os.ReadFile(filepath.Join(r.Dir, filepath.FromSlash(rel)))
	return b
}

// HasLine reports whether out has a line equal to line.
func HasLine(out, line string) bool {
	for _, l := range strings.Split(out, "\n") {
		if l == line {
			return true
		}
	}
	return false
}
