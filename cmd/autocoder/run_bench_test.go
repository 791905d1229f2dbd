package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/agent/agenttest"
	"github.com/autocoder/autocoder/gitops/gittest"
)

// BenchmarkRunTurn measures a turn of `autocoder run` outside the model:
// a local OpenAI-compatible server (agenttest) answers each request at
// once with a one-step answer (one line of another tracked file, in
// another folder), so the time from one request to the next is what
// autocoder spends on a turn: reading the streamed answer, applying its
// step as a commit, writing the feedback, sending the conversation again.
// Beside it, in the same run, on a second identical repository, each same
// one-step answer is applied by its own `autocoder apply` (whole process),
// on repositories of 1,000 and 100,000 tracked files. Each round is one
// `autocoder run` of turns answers, then as many applies; the first turn
// of each run (which reads the index) is left out of the median as the
// warm-up it is. Git judges both results. Run:
//
//	go test -run '^$' -bench BenchmarkRunTurn -benchtime 1x ./cmd/autocoder/
//
// It prints medians, p90 and the ratio. CI runs no benchmark.
func BenchmarkRunTurn(b *testing.B) {
	const turns, rounds = 10, 3
	fmt.Printf("| tracked files | turns | run turn median | p90 | apply median | p90 | turn ÷ apply |\n")
	fmt.Printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, files := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("files=%d", files), func(b *testing.B) {
			gittest.Isolate(b)
			ours, theirs := benchMCPRepo(b, files), benchMCPRepo(b, files)
			var tt, at []time.Duration
			for round := range rounds {
				answers := make([]string, turns)
				for i := range answers {
					answers[i] = benchRunAnswer(files, round*turns+i)
				}
				tt = append(tt, benchRunTurns(b, ours, answers)[1:]...)
				for _, a := range answers {
					at = append(at, benchApplyOne(b, theirs, a))
				}
			}
			for _, dir := range []string{ours, theirs} {
				if st := benchGit(b, dir, "status", "--porcelain"); st != "" {
					b.Fatalf("%s: git status is not clean:\n%s", dir, st)
				}
				benchGit(b, dir, "fsck", "--strict", "--no-progress")
			}
			if a, g := benchGit(b, ours, "rev-parse", "HEAD^{tree}"), benchGit(b, theirs, "rev-parse", "HEAD^{tree}"); a != g {
				b.Fatalf("the run's tree %s is not the applies' %s", a, g)
			}
			tm, tp := medianP90(tt)
			am, ap := medianP90(at)
			fmt.Printf("| %d | %d | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.2f× |\n",
				files, len(tt), ms(tm), ms(tp), ms(am), ms(ap), float64(tm)/float64(am))
			b.ReportMetric(float64(tm)/float64(am), "turn/apply")
		})
	}
}

// benchRunAnswer is the model's answer of turn n: one step editing one
// line of a tracked file, in the autocoder JSON dialect.
func benchRunAnswer(files, n int) string {
	f := (n*7919 + 17) % files
	path := benchMCPPath(files, f)
	old := fmt.Sprintf("// file %d of the benchmark repository, unique content\n", f)
	return fmt.Sprintf("Turn %d.\n\n#####--\n{\"metadata\": {\"step_id\": \"t%d\", \"reason\": \"Edit %s\"},\n"+
		"\"file_operations\": [{\"action_type\": \"replace_file\", \"path\": %q, \"modify_content\": "+
		"[{\"old_content\": %q, \"new_content\": %q}]}]}\n--#####\n", n, n, path, path, old,
		fmt.Sprintf("// file %d of the benchmark repository, edited in turn %d\n", f, n))
}

// benchRunTurns runs `autocoder run` in dir on a model that answers
// answers, then an answer without a block (which ends the run), and
// returns the time of each turn: from its request to the next.
func benchRunTurns(b *testing.B, dir string, answers []string) []time.Duration {
	var as []agenttest.Answer
	for _, a := range answers {
		as = append(as, agenttest.Answer{Text: a})
	}
	srv := agenttest.New(append(as, agenttest.Answer{Text: "Done."})...)
	defer srv.Close()
	cmd := exec.Command("autocoder", "run", "--model", "m", "edit the files")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=k")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("autocoder run: %v\n%s", err, out)
	} else if !strings.Contains(string(out), "1 applied") {
		b.Fatalf("autocoder run applied nothing:\n%s", out)
	}
	reqs := srv.Requests()
	if len(reqs) != len(answers)+1 {
		b.Fatalf("the model got %d requests, want %d", len(reqs), len(answers)+1)
	}
	var ds []time.Duration
	for i := 1; i < len(reqs); i++ {
		ds = append(ds, reqs[i].At.Sub(reqs[i-1].At))
	}
	return ds
}

// benchApplyOne applies answer in dir with `autocoder apply` and returns
// the time of the whole process.
func benchApplyOne(b *testing.B, dir, answer string) time.Duration {
	resp := filepath.Join(b.TempDir(), "response.md")
	if err := os.WriteFile(resp, []byte(answer), 0o666); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("autocoder", "apply", "--quiet", resp)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		b.Fatalf("autocoder apply: %v\n%s", err, out)
	}
	return d
}
