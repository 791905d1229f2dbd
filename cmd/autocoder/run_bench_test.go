package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/agent/agenttest"
)

// benchRunTurns runs `autocoder run` in dir on a model that answers
// answers, then an answer without a block (which ends the run), and
// returns the time of each turn outside the model: from its request to the
// next (BenchmarkScale's run-turn row).
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
