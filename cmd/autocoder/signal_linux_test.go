//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// Ctrl-C or SIGTERM of autocoder stops its programs (with what they left
// running, setsid escapees included), keeps the steps committed before,
// says so, and exits 130 or 143.
func TestSignalStopsProgramsAndExits128PlusSignal(t *testing.T) {
	gittest.Isolate(t)
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
			if pid > 0 && syscall.Kill(pid, 0) == nil {
				if st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); !bytes.Contains(st, []byte(") Z")) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("the program's setsid child %d outlived autocoder", pid)
				}
			}
		})
	}
}
