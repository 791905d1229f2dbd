package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// BenchmarkApplyProcess measures DESIGN.md's target for the command line,
// whole process included: `autocoder apply` of one response holding 50
// one-file steps (each edits one line of another tracked file, in another
// folder), beside the same 50 steps done by the loop a script would run
// (write the file, `git add` it, `git commit`), on two identical
// repositories of 1,000 and of 100,000 tracked files (gittest.Template), in
// the same run. Each round makes fresh copies; git judges both results
// (status clean, `fsck --strict` silent, the same final tree). BenchmarkScale
// measures the same beside the other operations. Run:
//
//	go test -run '^$' -bench BenchmarkApplyProcess -benchtime 1x ./cmd/autocoder/
//
// It prints, per round, the two wall-clock totals and their ratio, then the
// medians. CI runs no benchmark.
func BenchmarkApplyProcess(b *testing.B) {
	const steps, rounds = 50, 3
	fmt.Printf("| tracked files | steps | round | autocoder apply (one process) | git add + git commit loop | git ÷ autocoder |\n")
	fmt.Printf("| ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, files := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("files=%d", files), func(b *testing.B) {
			gittest.Isolate(b)
			var at, gt []time.Duration
			for round := 1; round <= rounds; round++ {
				a, g := benchApplyRound(b, files, steps)
				at, gt = append(at, a), append(gt, g)
				fmt.Printf("| %d | %d | %d | %.0f ms | %.0f ms | %.1f× |\n", files, steps, round, ms(a), ms(g), float64(g)/float64(a))
			}
			am, _ := medianP90(at)
			gm, _ := medianP90(gt)
			fmt.Printf("| %d | %d | median | %.0f ms | %.0f ms | %.1f× |\n", files, steps, ms(am), ms(gm), float64(gm)/float64(am))
			b.ReportMetric(float64(gm)/float64(am), "git/autocoder")
		})
	}
}

// benchApplyRound makes two identical repositories and times the 50 steps
// on each: autocoder's one process, and the git loop.
func benchApplyRound(b *testing.B, files, steps int) (autocoder, git time.Duration) {
	ours, theirs := benchRepo(b, files), benchRepo(b, files)
	defer benchRemove(ours, theirs)
	edits := benchEdits(files, 0, steps)
	resp := benchResponseFile(b, edits, 1)
	start := time.Now()
	benchAutocoder(b, ours, nil, "apply", "--quiet", resp)
	autocoder = time.Since(start)
	start = time.Now()
	for i, e := range edits {
		benchGitStep(b, theirs, e, i+1)
	}
	git = time.Since(start)
	benchJudge(b, ours, "HEAD", theirs, "HEAD", steps)
	return autocoder, git
}

// benchEdit is one benchmark step, as both sides apply it: in Path, the
// line Old becomes New.
type benchEdit struct{ path, old, new string }

// benchEdits are count one-line edits of files of the generated repository
// of files files, each in another file and (almost always) another folder:
// the from-th to the (from+count-1)-th of one fixed sequence, so that
// several calls with disjoint ranges never edit the same file.
func benchEdits(files, from, count int) []benchEdit {
	l := gittest.LayoutFor(files)
	var edits []benchEdit
	for i := from; i < from+count; i++ {
		n := (i*7919 + 13) % files
		edits = append(edits, benchEdit{l.Path(n), gittest.VersionLine(n, 0), gittest.VersionLine(n, 1)})
	}
	return edits
}

// benchResponse is a model's response holding one autocoder step per edit,
// numbered from first.
func benchResponse(edits []benchEdit, first int) string {
	var response strings.Builder
	for i, e := range edits {
		fmt.Fprintf(&response, "Step %d.\n\n#####--\n{\"metadata\": {\"step_id\": \"s%d\", \"reason\": \"Edit %s\"},\n"+
			"\"file_operations\": [{\"action_type\": \"replace_file\", \"path\": %q, \"modify_content\": "+
			"[{\"old_content\": %q, \"new_content\": %q}]}]}\n--#####\n\n", first+i, first+i, e.path, e.path, e.old, e.new)
	}
	return response.String()
}

// benchResponseFile writes benchResponse to a file of its own.
func benchResponseFile(b *testing.B, edits []benchEdit, first int) string {
	f, err := os.CreateTemp(b.TempDir(), "response-*.md")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(benchResponse(edits, first)); err != nil {
		b.Fatal(err)
	}
	return f.Name()
}

// benchAutocoder runs autocoder in dir, with env added to the environment,
// and fails the benchmark if it fails.
func benchAutocoder(b *testing.B, dir string, env []string, args ...string) {
	cmd := exec.Command("autocoder", args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("autocoder %v: %v\n%s", args, err, out)
	}
}

// benchGitStep is one edit as a script does it without autocoder: write the
// file, `git add` it, `git commit`.
func benchGitStep(b *testing.B, dir string, e benchEdit, step int) {
	p := filepath.Join(dir, e.path)
	data, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), e.old, e.new, 1)), 0o666); err != nil {
		b.Fatal(err)
	}
	benchGit(b, dir, "add", "--", e.path)
	benchGit(b, dir, "commit", "-q", "-m", fmt.Sprintf("Edit %s\n\nstep %d", e.path, step))
}

// benchJudge has git judge both sides: each checkout clean, both
// repositories silent under `fsck --strict`, autocoder's revision ourRev
// the same tree as the git side's theirRev, and commits commits on it
// since main.
func benchJudge(b *testing.B, ours, ourRev, theirs, theirRev string, commits int) {
	for _, dir := range []string{ours, theirs} {
		if st := benchGit(b, dir, "status", "--porcelain"); st != "" {
			b.Fatalf("%s: git status is not clean:\n%s", dir, st)
		}
		benchGit(b, dir, "fsck", "--strict", "--no-progress")
	}
	if a, g := benchGit(b, ours, "rev-parse", ourRev+"^{tree}"), benchGit(b, theirs, "rev-parse", theirRev+"^{tree}"); a != g {
		b.Fatalf("autocoder's tree %s (%s) is not the git loop's %s (%s)", a, ourRev, g, theirRev)
	}
	if n := benchGit(b, ours, "rev-list", "--count", "main.."+ourRev); n != fmt.Sprint(commits) {
		b.Fatalf("autocoder made %s commits on %s, want %d", n, ourRev, commits)
	}
}

func benchGit(b *testing.B, dir string, args ...string) string {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}
