package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/agent/agenttest"
)

// A task on standard input larger than run reads is refused, not cut: the
// model was asked the start of the task as if it were all of it.
func TestRunRefusesATaskTooLarge(t *testing.T) {
	dir := t.TempDir()
	task := strings.Repeat("add a flag. ", maxTaskBytes/10)
	var out, errw bytes.Buffer
	code := run([]string{"autocoder", "-C", dir, "run", "--model", "m", "-"}, strings.NewReader(task), &out, &errw)
	if code != 2 || !strings.Contains(errw.String(), "the task is larger than 1048576 bytes") {
		t.Fatalf("exit %d\n%s", code, errw.String())
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Errorf("the folder changed: %v %v", ents, err)
	}
}

// [model] answer_timeout reaches the run: a server that drips for ever
// (each byte resetting the idle timeout) ends the run at it, with nothing
// of the answer applied and a hint that names the key.
func TestRunAnswerTimeout(t *testing.T) {
	t.Parallel()
	srv := agenttest.New(agenttest.Answer{Text: createB, Drip: true})
	defer srv.Close()
	r := newTrustRepo(t, "", false)
	r.userConfig("[model]\nmodel = \"m\"\nanswer_timeout = \"30ms\"\n")
	before := r.Snapshot()
	out, code := r.autocoder([]string{"OPENAI_BASE_URL=" + srv.URL(), "OPENAI_API_KEY=k"}, "run", "write b")
	if code == 0 || !strings.Contains(out, "took longer than 30ms") || !strings.Contains(out, "answer_timeout") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	r.AssertRestored(before)
}
