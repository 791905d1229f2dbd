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

// `autocoder run` reads the settings again between answers when the user
// changed them, as an MCP session does between calls: a program of the
// repository's file, allowed while the file was trusted, is refused after
// autocoder untrust; a path the user's own file denies from the second
// turn on is refused; the run goes on, and nothing of a refused step is
// written. Before, the run kept the settings it started with to its end.
func TestRunReadsTheSettingsAgainBetweenAnswers(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t, "[programs]\nenabled = true\nallow = [\"touch\"]\n", true)
	if out, code := r.autocoder(nil, "trust"); code != 0 {
		t.Fatalf("autocoder trust: exit %d\n%s", code, out)
	}
	r.userConfig("[model]\nmodel = \"m\"\n")
	touch := func(id, file string) string {
		return "#####--\n{\"metadata\":{\"step_id\":\"" + id + "\",\"reason\":\"r\"},\"type\":\"operate\",\"program_operations\":[{\"name\":\"t\",\"command\":\"touch " + file + "\"}]}\n--#####\n"
	}
	srv := agenttest.New(
		agenttest.Answer{Text: touch("p1", "one.txt")},
		agenttest.Answer{Text: touch("p2", "two.txt"), Before: func() {
			if out, code := r.autocoder(nil, "untrust"); code != 0 {
				t.Errorf("autocoder untrust: exit %d\n%s", code, out)
			}
		}},
		agenttest.Answer{Text: createB, Before: func() {
			r.userConfig("[model]\nmodel = \"m\"\n[paths]\ndeny = [\"b.txt\"]\n")
		}},
		agenttest.Answer{Text: "Done: nothing more to do.\n"},
	)
	defer srv.Close()
	out, _ := r.autocoder([]string{"OPENAI_BASE_URL=" + srv.URL(), "OPENAI_API_KEY=k"}, "run", "make files")
	if _, ok := r.Read("one.txt"); !ok {
		t.Fatalf("the trusted file's program did not run in the first turn:\n%s", out)
	}
	if _, ok := r.Read("two.txt"); ok {
		t.Errorf("two.txt was made after autocoder untrust:\n%s", out)
	}
	if _, ok := r.Read("b.txt"); ok {
		t.Errorf("b.txt was written after the user's own file denied it:\n%s", out)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4 (the run goes on after each refusal):\n%s", len(reqs), out)
	}
	if fb := reqs[2].Messages[len(reqs[2].Messages)-1].Content; !strings.Contains(fb, "autocoder trust") {
		t.Errorf("the feedback on the second answer does not say the program needs trust:\n%s", fb)
	}
	if fb := reqs[3].Messages[len(reqs[3].Messages)-1].Content; !strings.Contains(fb, "b.txt") || !strings.Contains(fb, "deny") {
		t.Errorf("the feedback on the third answer does not say b.txt is denied:\n%s", fb)
	}
	if st := r.Git("status", "--porcelain", "--untracked-files=no"); st != "" {
		t.Errorf("git status after the run:\n%s", st)
	}
}

// The hint printed for a program the policy refused is the policy's in
// force at that answer, not the one the run began with: the user's own
// file stops allowing a variable during the run, and the program that
// sets it is refused for the variable, which --allow-programs would not
// let through either, so the hint does not offer it.
func TestRunHintsWithTheSettingsReadAgain(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t, "", false)
	r.userConfig("[model]\nmodel = \"m\"\n[programs]\nenabled = true\nallow = [\"touch\"]\nenv = [\"FOO\"]\n")
	srv := agenttest.New(
		agenttest.Answer{Text: hMcpCall("process.run", hMcpArgs("command", "touch", "args", `["ran.txt"]`, "env", `{"FOO":"1"}`)), Before: func() {
			r.userConfig("[model]\nmodel = \"m\"\n[programs]\nenabled = true\nallow = [\"touch\"]\nenv = []\n")
		}},
		agenttest.Answer{Text: "Done.\n"},
	)
	defer srv.Close()
	out, code := r.autocoder([]string{"OPENAI_BASE_URL=" + srv.URL(), "OPENAI_API_KEY=k"}, "run", "touch")
	if code != 4 || !strings.Contains(out, "FOO") {
		t.Fatalf("exit %d, want 4 (the program refused for its variable)\n%s", code, out)
	}
	if strings.Contains(out, "--allow-programs") {
		t.Errorf("the hint offers --allow-programs for a variable the user's file no longer allows:\n%s", out)
	}
	if _, ok := r.Read("ran.txt"); ok {
		t.Errorf("ran.txt was made:\n%s", out)
	}
}
