//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autocoder/autocoder/agent/agenttest"
	"github.com/autocoder/autocoder/gitops/gittest"
)

// Ctrl-C or SIGTERM of autocoder stops its programs (with what they left
// running, setsid escapees included), keeps the steps committed before,
// says so, and exits 130 or 143.
func TestSignalStopsProgramsAndExits128PlusSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("signals a running apply: slow; runs without -short")
	}
	t.Parallel()
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
			plan := filepath.Join(t.TempDir(), "plan.md")
			os.WriteFile(plan, []byte("#####--\n{\"metadata\": {\"step_id\": \"first\"}, \"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"one.txt\", \"file_content\": \"one\\n\"}]}\n--#####\n"+
				"#####--\n{\"metadata\": {\"step_id\": \"long\"}, \"program_operations\": [{\"command\": \"setsid sleep 60 & echo $! > escapee.pid; sleep 60\"}]}\n--#####\n"), 0o666)
			cmd := exec.Command("autocoder", "-C", g.Dir, "apply", "--allow-programs", plan)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pidFile := filepath.Join(g.Dir, "escapee.pid")
			deadline := time.Now().Add(20 * time.Second)
			for {
				if b, _ := os.ReadFile(pidFile); len(bytes.TrimSpace(b)) > 0 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the program never started:\n%s", out.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(100 * time.Millisecond)
			start := time.Now()
			cmd.Process.Signal(tc.sig)
			err := cmd.Wait()
			if el := time.Since(start); el > 10*time.Second {
				t.Errorf("autocoder took %v to stop", el)
			}
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("exit code %d (%v), want %d; output:\n%s", code, err, tc.code, out.String())
			}
			if !strings.Contains(out.String(), "applied") || !strings.Contains(out.String(), "first") {
				t.Errorf("the output does not say the first step was committed:\n%s", out.String())
			}
			if g.MustRead("one.txt") != "one\n" {
				t.Error("the committed first step was lost")
			}
			b, _ := os.ReadFile(pidFile)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if pid > 0 && processAlive(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("the program's setsid child %d outlived autocoder", pid)
			}
		})
	}
}

// Ctrl-C during autocoder run, with a program that keeps running since turn
// 1, takes back the turn in flight whole (whether the model is still
// writing it or its steps are being applied), stops every program with its
// children, exits 130 and leaves nothing uncommitted: the work branch ends
// at turn 1's commit and git status is clean.
func TestRunInterruptRollsBackTheTurnAndStopsPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("interrupts a run mid-turn: slow; runs without -short")
	}
	t.Parallel()
	turn1 := func(pids string) string {
		return "#####--\n" + `{"metadata": {"step_id": "s1", "reason": "start the server"}, "type": "operate",
 "file_operations": [{"action_type": "create_file", "path": "one.txt", "file_content": "one\n"}],
 "program_operations": [{"name": "server", "keep_running": true,
   "command": "echo $$ > ` + pids + `/live.pid; sleep 1000 & echo $! > ` + pids + `/child.pid; while :; do echo tick >> ticks.log; sleep 0.1; done"}]}` + "\n--#####\n"
	}
	for _, tc := range []struct {
		name  string
		turn2 func(pids string) agenttest.Answer
		wait  string // the file whose presence says turn 2 is under way ("" : the second request)
	}{
		{"applying", func(pids string) agenttest.Answer {
			return agenttest.Answer{Text: "#####--\n" + `{"metadata": {"step_id": "s2"}, "file_operations": [{"action_type": "create_file", "path": "two.txt", "file_content": "two\n"}]}` + "\n--#####\n" +
				"#####--\n" + `{"metadata": {"step_id": "s3"}, "program_operations": [{"name": "long", "command": "echo $$ > ` + pids + `/long.pid; sleep 60"}]}` + "\n--#####\n"}
		}, "long.pid"},
		{"streaming", func(string) agenttest.Answer {
			text := "#####--\n" + `{"metadata": {"step_id": "s2"}, "file_operations": [{"action_type": "create_file", "path": "two.txt", "file_content": "two\n"}]}` + "\n--#####\n"
			return agenttest.Answer{Text: text, CutAfter: 60, Hang: true}
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
			pids := t.TempDir()
			srv := agenttest.New(agenttest.Answer{Text: turn1(pids)}, tc.turn2(pids),
				agenttest.Answer{Text: "#####--\n{\"type\": \"finish\", \"metadata\": {\"summary\": \"never reached\"}}\n--#####\n"})
			defer srv.Close()
			cmd := exec.Command("autocoder", "-C", g.Dir, "run", "--allow-programs", "--model", "m", "--lang", "en", "start and go on")
			cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=k")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			underway := func() bool {
				if tc.wait == "" {
					return len(srv.Requests()) >= 2
				}
				b, _ := os.ReadFile(filepath.Join(pids, tc.wait))
				return len(bytes.TrimSpace(b)) > 0
			}
			deadline := time.Now().Add(20 * time.Second)
			for !underway() {
				if time.Now().After(deadline) {
					t.Fatalf("turn 2 never got under way:\n%s", out.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond)
			start := time.Now()
			cmd.Process.Signal(syscall.SIGINT)
			err := cmd.Wait()
			if el := time.Since(start); el > 10*time.Second {
				t.Errorf("autocoder took %v to stop", el)
			}
			if code := cmd.ProcessState.ExitCode(); code != 130 {
				t.Errorf("exit code %d (%v), want 130; output:\n%s", code, err, out.String())
			}
			if !strings.Contains(out.String(), "interrupted; the turn in flight was not applied or was taken back") {
				t.Errorf("the output does not say the run was interrupted and turn 2 taken back:\n%s", out.String())
			}
			// The answer streams: what the model wrote of turn 2 before
			// the interrupt was on the terminal already.
			if tc.wait == "" && !strings.Contains(out.String(), `{"metadata": {"step_id": "s2"}, "file_op`) {
				t.Errorf("the part of turn 2 the model sent is not in the output:\n%s", out.String())
			}
			if tc.wait != "" && !regexp.MustCompile(`steps: 3 \(1 applied, 2 rolled back\)`).MatchString(out.String()) {
				t.Errorf("the summary does not count turn 2's steps as rolled back:\n%s", out.String())
			}
			// The summary counts steps, not the reports on the live program.
			if !strings.Contains(out.String(), "steps: ") || strings.Contains(out.String(), " read") {
				t.Errorf("the summary's step count is wrong (no step read anything):\n%s", out.String())
			}
			// Turn 1 is kept, turn 2 is gone, nothing is left uncommitted.
			// (The live program's file, ticks.log, is committed by program
			// commits of its own.)
			if got := g.Git("log", "--format=%s", "--invert-grep", "--grep=^Record the files changed by", "main..autocoder/main"); got != "Start the server\n" {
				t.Errorf("the work branch holds, past main, besides program commits:\n%swant turn 1's one commit", got)
			}
			if g.MustRead("one.txt") != "one\n" {
				t.Error("turn 1's file is gone")
			}
			if _, ok := g.Read("two.txt"); ok {
				t.Error("two.txt of the interrupted turn is in the work tree")
			}
			if st := g.Git("status", "--porcelain", "--untracked-files=all"); st != "" {
				t.Errorf("git status after the interrupt:\n%s", st)
			}
			g.Fsck()
			// The conversation is kept, and says how it ended.
			recs, _ := filepath.Glob(filepath.Join(g.Dir, ".git", "autocoder", "runs", "*.json"))
			if len(recs) != 1 {
				t.Errorf("run records: %v", recs)
			} else if b, _ := os.ReadFile(recs[0]); !bytes.Contains(b, []byte(`"stop": "interrupted"`)) {
				t.Errorf("the run record does not say it was interrupted:\n%s", b)
			}
			// Every program is gone: the live one's process group (its
			// shell and the sleep it left in the background) and the
			// turn's own.
			for _, f := range []string{"live.pid", "child.pid", "long.pid"} {
				b, err := os.ReadFile(filepath.Join(pids, f))
				if err != nil {
					continue // long.pid: only the applying case runs it
				}
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				if pid <= 0 {
					t.Fatalf("%s holds %q", f, b)
				}
				if processAlive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("%s: process %d outlived autocoder", f, pid)
				}
				if f == "live.pid" {
					if left := groupAlive(pid); len(left) > 0 {
						syscall.Kill(-pid, syscall.SIGKILL)
						t.Errorf("the live program's process group %d is still there: processes %v", pid, left)
					}
				}
			}
		})
	}
}

// groupAlive lists the processes of process group pgid that are not
// zombies. (kill(-pgid, 0) also counts zombies, and a killed program whose
// parent, autocoder, has exited waits as a zombie until PID 1 reaps it,
// which in a container may be never.)
func groupAlive(pgid int) []int {
	var left []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and ')'.
		i := bytes.LastIndexByte(st, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(st[i+1:]))
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			left = append(left, pid)
		}
	}
	return left
}
