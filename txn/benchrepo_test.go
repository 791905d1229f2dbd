package txn_test

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// This file builds what BenchmarkApply (bench_test.go) measures on: large
// repositories generated with git fast-import, and one fixed list of steps
// that both the engine and the git loop apply.

// benchLayout is the shape of a generated repository: src/modMM/pkgPP/fileFFF.go,
// mods × pkgs folders of perDir files each, like a Go tree a few levels deep.
type benchLayout struct {
	mods, pkgs, perDir int
}

func layoutFor(files int) benchLayout {
	switch files {
	case 1000:
		return benchLayout{mods: 5, pkgs: 5, perDir: 40}
	case 100000:
		return benchLayout{mods: 10, pkgs: 25, perDir: 400}
	}
	panic(fmt.Sprintf("no layout for %d files", files))
}

func (l benchLayout) dirs() int  { return l.mods * l.pkgs }
func (l benchLayout) files() int { return l.dirs() * l.perDir }

func (l benchLayout) dir(d int) string {
	return fmt.Sprintf("src/mod%02d/pkg%02d", d/l.pkgs, d%l.pkgs)
}

// path is the path of file number n (0 ≤ n < files()).
func (l benchLayout) path(n int) string {
	return fmt.Sprintf("%s/file%03d.go", l.dir(n/l.perDir), n%l.perDir)
}

// versionLine is the one line of file n that steps edit: unique in the file
// (it names n) and different after every edit, so each replace matches once.
func versionLine(n, version int) string {
	return fmt.Sprintf("const version%06d = %d\n", n, version)
}

// benchContent is file n as generated (version 0): about 400 bytes of Go,
// unique per file so that every blob is distinct, as in real code.
func (l benchLayout) content(n int) []byte {
	d := n / l.perDir
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Package pkg%02d is generated for the apply benchmark.\npackage pkg%02d\n\n", d%l.pkgs, d%l.pkgs)
	fmt.Fprintf(&b, "import \"strconv\"\n\n%s\n", versionLine(n, 0))
	fmt.Fprintf(&b, "// Value%06d returns the value of %s, which callers\n// format with Name%06d.\n", n, l.path(n), n)
	fmt.Fprintf(&b, "func Value%06d(x int) int {\n\tif x > %d {\n\t\treturn x - %d\n\t}\n\treturn x*%d + version%06d\n}\n\n", n, n%97, n%89, n%13+2, n)
	fmt.Fprintf(&b, "// Name%06d names a value for the logs.\nfunc Name%06d(x int) string {\n\treturn \"%s:\" + strconv.Itoa(Value%06d(x))\n}\n", n, n, l.path(n), n)
	return b.Bytes()
}

// benchOp is one change of a benchmark step, in a form both sides can apply:
// a replace of Old by New in Path, or (Create) a new file with Content.
type benchOp struct {
	Path     string
	Old, New string
	Create   bool
	Content  []byte
}

// benchStep is one step as both sides apply it.
type benchStep struct {
	ID      string
	Message string
	Ops     []benchOp
}

// txnStep is the step as a dialect reader would hand it to the engine.
func (s benchStep) txnStep() *step.Step {
	st := &step.Step{ID: s.ID, Reason: s.Message, Dialect: "axon"}
	for _, op := range s.Ops {
		if op.Create {
			st.Ops = append(st.Ops, step.Op{Kind: step.OpWrite, Path: op.Path, Content: op.Content})
		} else {
			st.Ops = append(st.Ops, step.Op{Kind: step.OpReplace, Path: op.Path, Edits: []step.Edit{{Old: op.Old, New: op.New}}})
		}
	}
	return st
}

// benchSteps makes n steps from a fixed seed: each modifies 1–3 existing
// files in different folders with a one-line replace, and one step in four
// also creates a new file. A file edited twice gets the edit that follows
// the first, so every step applies to what the steps before it left.
func benchSteps(l benchLayout, n int) []benchStep {
	rng := rand.New(rand.NewPCG(2026, 9))
	version := map[int]int{}
	steps := make([]benchStep, n)
	for i := range steps {
		s := benchStep{ID: fmt.Sprintf("bench-%03d", i+1)}
		used := map[int]bool{}
		pickDir := func() int {
			for {
				if d := rng.IntN(l.dirs()); !used[d] {
					used[d] = true
					return d
				}
			}
		}
		k := 1 + rng.IntN(3)
		var touched []string
		for range k {
			d := pickDir()
			f := d*l.perDir + rng.IntN(l.perDir)
			v := version[f]
			version[f] = v + 1
			s.Ops = append(s.Ops, benchOp{Path: l.path(f), Old: versionLine(f, v), New: versionLine(f, v+1)})
			touched = append(touched, l.path(f))
		}
		if rng.IntN(4) == 0 {
			p := fmt.Sprintf("%s/step%03d.go", l.dir(pickDir()), i+1)
			s.Ops = append(s.Ops, benchOp{Path: p, Create: true,
				Content: fmt.Appendf(nil, "package generated\n\n// Step%03d was added by benchmark step %d.\nconst Step%03d = %d\n", i+1, i+1, i+1, rng.IntN(1000))})
			touched = append(touched, p)
		}
		s.Message = fmt.Sprintf("bench: step %d bumps %s", i+1, strings.Join(touched, ", "))
		steps[i] = s
	}
	return steps
}

// benchRepos caches one generated repository per size for the whole test
// binary run: generation is the slow part (seconds at 100k files) and the
// same repository serves every -count round. TestMain removes the folder.
var benchRepos struct {
	sync.Mutex
	root  string
	built map[int]string
}

func cleanupBenchRepos() {
	benchRepos.Lock()
	defer benchRepos.Unlock()
	if benchRepos.root != "" {
		os.RemoveAll(benchRepos.root)
	}
}

// benchTemplate returns the generated repository for a size, building it on
// first use. It must never be applied to: benchCopy makes working copies.
func benchTemplate(b *testing.B, l benchLayout) string {
	b.Helper()
	benchRepos.Lock()
	defer benchRepos.Unlock()
	if dir, ok := benchRepos.built[l.files()]; ok {
		return dir
	}
	if benchRepos.root == "" {
		root, err := os.MkdirTemp("", "autocoder-bench-")
		if err != nil {
			b.Fatal(err)
		}
		if real, err := filepath.EvalSymlinks(root); err == nil {
			root = real
		}
		benchRepos.root, benchRepos.built = root, map[int]string{}
	}
	dir := filepath.Join(benchRepos.root, fmt.Sprintf("template-%d", l.files()))
	start := time.Now()
	if err := generate(dir, l); err != nil {
		b.Fatalf("generate a %d-file repository: %v", l.files(), err)
	}
	b.Logf("generated %d tracked files in %v", l.files(), time.Since(start).Round(time.Millisecond))
	benchRepos.built[l.files()] = dir
	return dir
}

// benchEpoch is the generated commit's date; worktree files are dated here
// too, long before any index is written, so no entry is racily clean.
var benchEpoch = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// generate makes a repository with one commit on main holding every file of
// the layout, checked out, with a clean index that has a cache tree (TREE),
// as a repository whose last commit git made has.
func generate(dir string, l benchLayout) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	if err := runGit(dir, nil, "init", "-q", "-b", "main"); err != nil {
		return err
	}
	// fast-import writes every blob and tree into one pack without an index
	// or a worktree in the way: 100k files take seconds, git add takes minutes.
	cmd := exec.Command("git", "fast-import", "--quiet", "--done")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	msg := fmt.Sprintf("generated: %d files for the apply benchmark\n", l.files())
	fmt.Fprintf(w, "commit refs/heads/main\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s", benchEpoch.Unix(), len(msg), msg)
	for n := range l.files() {
		c := l.content(n)
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n", l.path(n), len(c))
		w.Write(c)
		w.WriteByte('\n')
	}
	readme := "# generated repository\n"
	fmt.Fprintf(w, "M 100644 inline README.md\ndata %d\n%s\ndone\n", len(readme), readme)
	werr := w.Flush()
	in.Close()
	if err := cmd.Wait(); err != nil || werr != nil {
		return fmt.Errorf("git fast-import: %v %v: %s", err, werr, stderr.Bytes())
	}
	// reset --hard writes the worktree and an index whose cache tree it
	// primes from the commit's tree.
	if err := runGit(dir, nil, "reset", "-q", "--hard"); err != nil {
		return err
	}
	if err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		return os.Chtimes(p, benchEpoch, benchEpoch)
	}); err != nil {
		return err
	}
	// The dates changed, so the index's stat data must be refreshed; doing
	// it now leaves every file older than the index.
	if err := runGit(dir, nil, "update-index", "-q", "--refresh"); err != nil {
		return err
	}
	return runGit(dir, nil, "write-tree")
}

// benchCopy makes a working copy of a template for one side of one round
// and settles its index (a copy has new inode numbers and change times, which
// git's stat check sees; the first command would otherwise re-hash every
// file inside the measurement). It checks the copy is clean and its index
// has a cache tree.
func benchCopy(b *testing.B, template, dst string) {
	b.Helper()
	if out, err := exec.Command("cp", "-a", template, dst).CombinedOutput(); err != nil {
		b.Fatalf("copy the generated repository: %v\n%s", err, out)
	}
	if err := runGit(dst, nil, "update-index", "-q", "--refresh"); err != nil {
		b.Fatal(err)
	}
	ix, err := os.ReadFile(filepath.Join(dst, ".git", "index"))
	if err != nil {
		b.Fatal(err)
	}
	// No generated path holds "TREE", so the bytes occur only as the
	// extension's signature.
	if !bytes.Contains(ix, []byte("TREE")) {
		b.Fatal("the generated index has no cache tree (TREE extension): the benchmark would not be like a real repository")
	}
	var out bytes.Buffer
	if err := runGit(dst, &out, "status", "--porcelain"); err != nil || out.Len() > 0 {
		b.Fatalf("a fresh copy is not clean: %v\n%s", err, out.Bytes())
	}
}

// runGit runs git in dir; stdout goes to out when it is not nil.
func runGit(dir string, out *bytes.Buffer, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out != nil { // a nil *bytes.Buffer in an io.Writer is not a nil Writer
		cmd.Stdout = out
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}
