package gittest

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// This file builds the large repositories the benchmarks measure on (txn's
// BenchmarkApply and BenchmarkOneStepApply, cmd/autocoder's BenchmarkScale,
// BenchmarkApplyProcess and BenchmarkMCPWrite): generated with git
// fast-import, cached as templates under os.TempDir() between runs, and
// copied for each side of each round.

// Layout is the shape of a generated repository: src/modMM/pkgPP/fileFFF.go,
// Mods × Pkgs folders of PerDir files each, like a Go tree a few levels deep.
type Layout struct {
	Mods, Pkgs, PerDir int
}

// LayoutFor is the layout of the generated repository of files tracked
// files (besides README.md): 1,000, 100,000 or 1,000,000.
func LayoutFor(files int) Layout {
	switch files {
	case 1000:
		return Layout{Mods: 5, Pkgs: 5, PerDir: 40}
	case 100000:
		return Layout{Mods: 10, Pkgs: 25, PerDir: 400}
	case 1000000:
		return Layout{Mods: 40, Pkgs: 50, PerDir: 500}
	}
	panic(fmt.Sprintf("no layout for %d files (1000, 100000 or 1000000)", files))
}

// Dirs is the number of folders that hold files.
func (l Layout) Dirs() int { return l.Mods * l.Pkgs }

// Files is the number of generated files (README.md aside).
func (l Layout) Files() int { return l.Dirs() * l.PerDir }

// Dir is the path of folder d (0 ≤ d < Dirs()).
func (l Layout) Dir(d int) string {
	return fmt.Sprintf("src/mod%02d/pkg%02d", d/l.Pkgs, d%l.Pkgs)
}

// Path is the path of file number n (0 ≤ n < Files()).
func (l Layout) Path(n int) string {
	return fmt.Sprintf("%s/file%03d.go", l.Dir(n/l.PerDir), n%l.PerDir)
}

// VersionLine is the one line of file n that benchmark steps edit: unique
// in the file (it names n) and different after every edit, so each replace
// matches once. A generated file holds version 0.
func VersionLine(n, version int) string {
	return fmt.Sprintf("const version%06d = %d\n", n, version)
}

// Content is file n as generated (version 0): about 400 bytes of Go,
// unique per file so that every blob is distinct, as in real code.
func (l Layout) Content(n int) []byte {
	d := n / l.PerDir
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Package pkg%02d is generated for the apply benchmark.\npackage pkg%02d\n\n", d%l.Pkgs, d%l.Pkgs)
	fmt.Fprintf(&b, "import \"strconv\"\n\n%s\n", VersionLine(n, 0))
	fmt.Fprintf(&b, "// Value%06d returns the value of %s, which callers\n// format with Name%06d.\n", n, l.Path(n), n)
	fmt.Fprintf(&b, "func Value%06d(x int) int {\n\tif x > %d {\n\t\treturn x - %d\n\t}\n\treturn x*%d + version%06d\n}\n\n", n, n%97, n%89, n%13+2, n)
	fmt.Fprintf(&b, "// Name%06d names a value for the logs.\nfunc Name%06d(x int) string {\n\treturn \"%s:\" + strconv.Itoa(Value%06d(x))\n}\n", n, n, l.Path(n), n)
	return b.Bytes()
}

// templateFormat names the templates' format in their folder's name: bump it
// whenever Layout, Content or Generate change what a template holds, so that
// a template cached by an older version is not used.
const templateFormat = 1

// TemplateDir is where Template keeps the repository of files tracked files:
// a folder of os.TempDir() that stays between runs (remove it by hand).
func TemplateDir(files int) string {
	tmp := os.TempDir()
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real // macOS: /var is a link, and git prints real paths
	}
	return filepath.Join(tmp, fmt.Sprintf("autocoder-bench-template-v%d-%d", templateFormat, files))
}

// Template returns the generated repository of LayoutFor(files), building
// it (Generate) on first use and keeping it in TemplateDir(files) for later
// runs: at a million files generation takes minutes. It must never be
// worked in: CopyTemplate makes working copies. Two processes that build the
// same template at once each build their own and the first to finish wins.
func Template(tb testing.TB, files int) string {
	tb.Helper()
	dir := TemplateDir(files)
	if _, err := os.Stat(filepath.Join(dir, ".git", "index")); err == nil {
		return dir
	}
	building, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".building-")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.RemoveAll(building)
	start := time.Now()
	if err := Generate(building, LayoutFor(files)); err != nil {
		tb.Fatalf("generate a %d-file repository: %v", files, err)
	}
	fmt.Fprintf(os.Stderr, "generated the %d-file template %s in %v\n", files, dir, time.Since(start).Round(time.Second))
	// The template's paths are its own: git keeps none of them inside the
	// repository, so the folder may be renamed.
	if err := os.Rename(building, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, ".git", "index")); serr != nil {
			tb.Fatalf("keep the generated repository: %v", err)
		}
	}
	return dir
}

// Epoch is the generated commit's date; worktree files are dated here too,
// long before any index is written, so no entry is racily clean.
var Epoch = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// Generate makes in dir a repository with one commit on main holding every
// file of the layout and a README.md, checked out, with a clean index that
// has a cache tree (TREE), as a repository whose last commit git made has.
func Generate(dir string, l Layout) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	if err := runGit(dir, "init", "-q", "-b", "main"); err != nil {
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
	msg := fmt.Sprintf("generated: %d files for the apply benchmark\n", l.Files())
	fmt.Fprintf(w, "commit refs/heads/main\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s", Epoch.Unix(), len(msg), msg)
	for n := range l.Files() {
		c := l.Content(n)
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n", l.Path(n), len(c))
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
	if err := runGit(dir, "reset", "-q", "--hard"); err != nil {
		return err
	}
	if err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		return os.Chtimes(p, Epoch, Epoch)
	}); err != nil {
		return err
	}
	// The dates changed, so the index's stat data must be refreshed; doing
	// it now leaves every file older than the index.
	if err := runGit(dir, "update-index", "-q", "--refresh"); err != nil {
		return err
	}
	return runGit(dir, "write-tree")
}

// CopyTemplate makes dst a working copy of a template (cp -a: a copy of
// every file, not links, since git and autocoder may write a file in place)
// and settles its index: a copy has new inode numbers and change times,
// which git's stat check sees, and the first command would otherwise
// re-hash every file inside the measurement. It checks the copy is clean
// and its index has a cache tree.
func CopyTemplate(tb testing.TB, template, dst string) {
	tb.Helper()
	if out, err := exec.Command("cp", "-a", template, dst).CombinedOutput(); err != nil {
		tb.Fatalf("copy the generated repository: %v\n%s", err, out)
	}
	if err := runGit(dst, "update-index", "-q", "--refresh"); err != nil {
		tb.Fatal(err)
	}
	ix, err := os.ReadFile(filepath.Join(dst, ".git", "index"))
	if err != nil {
		tb.Fatal(err)
	}
	// No generated path holds "TREE", so the bytes occur only as the
	// extension's signature.
	if !bytes.Contains(ix, []byte("TREE")) {
		tb.Fatal("the generated index has no cache tree (TREE extension): the benchmark would not be like a real repository")
	}
	cmd := exec.Command("git", "status", "--porcelain")
	cmd.Dir = dst
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		tb.Fatalf("a fresh copy is not clean: %v\n%s", err, out)
	}
}

// runGit runs git in dir and returns its error output with the error.
func runGit(dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}
