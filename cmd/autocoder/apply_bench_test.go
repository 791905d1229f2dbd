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
// repositories of 1,000 and of 100,000 tracked files, in the same run. Each
// round makes fresh repositories; git judges both results (status clean,
// `fsck --strict` silent, the same final tree). Run:
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
	ours, theirs := benchMCPRepo(b, files), benchMCPRepo(b, files)
	var response strings.Builder
	type edit struct{ path, old, new string }
	var edits []edit
	for i := range steps {
		n := (i*7919 + 13) % files
		path := benchMCPPath(files, n)
		old := fmt.Sprintf("// file %d of the benchmark repository, unique content\n", n)
		e := edit{path, old, fmt.Sprintf("// file %d of the benchmark repository, edited by step %d\n", n, i+1)}
		edits = append(edits, e)
		fmt.Fprintf(&response, "Step %d.\n\n#####--\n{\"metadata\": {\"step_id\": \"s%d\", \"reason\": \"Edit %s\"},\n"+
			"\"file_operations\": [{\"action_type\": \"replace_file\", \"path\": %q, \"modify_content\": "+
			"[{\"old_content\": %q, \"new_content\": %q}]}]}\n--#####\n\n", i+1, i+1, path, path, e.old, e.new)
	}
	resp := filepath.Join(b.TempDir(), "response.md")
	if err := os.WriteFile(resp, []byte(response.String()), 0o666); err != nil {
		b.Fatal(err)
	}

	cmd := exec.Command("autocoder", "apply", "--quiet", resp)
	cmd.Dir = ours
	start := time.Now()
	out, err := cmd.CombinedOutput()
	autocoder = time.Since(start)
	if err != nil {
		b.Fatalf("autocoder apply: %v\n%s", err, out)
	}

	start = time.Now()
	for i, e := range edits {
		p := filepath.Join(theirs, e.path)
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(data), e.old, e.new, 1)), 0o666); err != nil {
			b.Fatal(err)
		}
		benchGit(b, theirs, "add", "--", e.path)
		benchGit(b, theirs, "commit", "-q", "-m", fmt.Sprintf("Edit %s\n\nstep %d", e.path, i+1))
	}
	git = time.Since(start)

	for _, dir := range []string{ours, theirs} {
		if st := benchGit(b, dir, "status", "--porcelain"); st != "" {
			b.Fatalf("%s: git status is not clean:\n%s", dir, st)
		}
		benchGit(b, dir, "fsck", "--strict", "--no-progress")
	}
	if a, g := benchGit(b, ours, "rev-parse", "HEAD^{tree}"), benchGit(b, theirs, "rev-parse", "HEAD^{tree}"); a != g {
		b.Fatalf("autocoder's tree %s is not the git loop's %s", a, g)
	}
	if n := benchGit(b, ours, "rev-list", "--count", "main..HEAD"); n != fmt.Sprint(steps) {
		b.Fatalf("autocoder made %s commits, want %d", n, steps)
	}
	return autocoder, git
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
