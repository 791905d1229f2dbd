//go:build linux

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/creack/pty"
)

// terminal is a command on a pseudo-terminal whose output the test reads
// as it comes: a question is awaited by reading until it shows, never by
// sleeping.
type terminal struct {
	t   *testing.T
	cmd *exec.Cmd
	tty *os.File
	out bytes.Buffer
}

func startTerminal(t *testing.T, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "AUTOCODER_TEST_AS_BINARY=1", "NO_COLOR=1")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return &terminal{t: t, cmd: cmd, tty: tty}
}

// await reads the terminal until its output holds want n times.
func (tm *terminal) await(want string, n int) {
	tm.t.Helper()
	b := make([]byte, 4096)
	for strings.Count(tm.out.String(), want) < n {
		k, err := tm.tty.Read(b)
		tm.out.Write(b[:k])
		if err != nil {
			tm.cmd.Process.Kill()
			tm.t.Fatalf("the terminal closed before %q showed %d times: %v\n%s", want, n, err, tm.out.String())
		}
	}
}

// end reads the terminal until the command's side of it closes, then
// returns the whole screen and the command's exit code.
func (tm *terminal) end() (string, int) {
	tm.t.Helper()
	_, err := io.Copy(&tm.out, tm.tty)
	var pe *os.PathError
	if err != nil && !(errors.As(err, &pe) && errors.Is(pe.Err, syscall.EIO)) {
		tm.t.Errorf("reading the terminal: %v", err) // EIO is Linux's end of a pty
	}
	tm.cmd.Wait()
	return tm.out.String(), tm.cmd.ProcessState.ExitCode()
}

// Ctrl-C typed at the apply -i question, SIGINT and SIGTERM sent to the
// process there: the command ends at once (it used to wait for an answer
// for ever), applies nothing of the step asked about or the steps after it,
// keeps the steps the user applied before, says so, and exits 128+signal
// (130 for Ctrl-C, 143 for SIGTERM).
func TestApplyInteractiveInterrupted(t *testing.T) {
	gittest.Isolate(t)
	const question = "[a]pply, [s]kip, [q]uit"
	for _, tc := range []struct {
		name    string
		applied []string // answered "a" before the interrupt
		stop    func(tm *terminal)
		code    int
	}{
		{"ctrl-c at the first question", nil, func(tm *terminal) { tm.tty.WriteString("\x03") }, 130},
		{"SIGINT at the first question", nil, func(tm *terminal) { tm.cmd.Process.Signal(syscall.SIGINT) }, 130},
		{"SIGTERM at the first question", nil, func(tm *terminal) { tm.cmd.Process.Signal(syscall.SIGTERM) }, 143},
		{"ctrl-c at the second question", []string{"a.txt"}, func(tm *terminal) { tm.tty.WriteString("\x03") }, 130},
		{"SIGTERM at the third question", []string{"a.txt", "b.txt"}, func(tm *terminal) { tm.cmd.Process.Signal(syscall.SIGTERM) }, 143},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := gittest.NewWithCommit(t, map[string]string{"README": "hello\n"})
			before := g.Snapshot()
			resp := filepath.Join(t.TempDir(), "plan.md")
			os.WriteFile(resp, []byte(threeSteps), 0o666)
			tm := startTerminal(t, "-C", g.Dir, "apply", "-i", resp)
			for i := range tc.applied {
				tm.await(question, i+1)
				tm.tty.WriteString("a\n")
			}
			tm.await(question, len(tc.applied)+1)
			tc.stop(tm)
			screen, code := tm.end()
			if code != tc.code {
				t.Errorf("exit code %d, want %d; the terminal shows:\n%s", code, tc.code, screen)
			}
			if !strings.Contains(screen, "autocoder: stopped by ") || !strings.Contains(screen, "not applied: interrupted") {
				t.Errorf("the terminal does not say the command was stopped and what was not applied:\n%s", screen)
			}
			if strings.Count(screen, question) != len(tc.applied)+1 {
				t.Errorf("asked again after the interrupt:\n%s", screen)
			}
			if len(tc.applied) == 0 {
				g.AssertUnchanged(before)
				return
			}
			// The steps answered "a" are committed, one each; nothing else
			// changed: no other file, git status clean, main where it was.
			if got := g.Git("log", "--format=%s", "main..autocoder/main"); strings.Count(got, "\n") != len(tc.applied) {
				t.Errorf("the work branch holds, past main:\n%swant %d steps", got, len(tc.applied))
			}
			if got := g.Git("rev-parse", "main"); got != g.Git("rev-parse", "autocoder/main~"+string(rune('0'+len(tc.applied)))) {
				t.Errorf("main moved, or the work branch does not start at it")
			}
			for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
				_, ok := g.Read(f)
				if want := strings.Contains(strings.Join(tc.applied, " "), f); ok != want {
					t.Errorf("%s in the work tree: %v, want %v", f, ok, want)
				}
			}
			g.AssertClean()
		})
	}
}

// Ctrl-C (SIGINT) during a wait for another autocoder ends the command at
// once with nothing applied and exit 130. The other autocoder is apply -i
// at its question, which holds the repository; the second apply says that
// it waits, and the test awaits that line, then interrupts it.
func TestInterruptedLockWait(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"README": "hello\n"})
	before := g.Snapshot()
	dir := t.TempDir()
	resp := filepath.Join(dir, "plan.md")
	os.WriteFile(resp, []byte(threeSteps), 0o666)
	first := startTerminal(t, "-C", g.Dir, "apply", "-i", resp)
	first.await("[a]pply, [s]kip, [q]uit", 1)

	second := exec.Command(os.Args[0], "-C", g.Dir, "apply", resp)
	second.Env = append(os.Environ(), "AUTOCODER_TEST_AS_BINARY=1")
	stderr, err := second.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	var said bytes.Buffer
	b := make([]byte, 512)
	for !strings.Contains(said.String(), "autocoder: waiting up to ") {
		n, err := stderr.Read(b)
		said.Write(b[:n])
		if err != nil {
			second.Process.Kill()
			t.Fatalf("the second apply ended without waiting: %v\n%s", err, said.String())
		}
	}
	second.Process.Signal(syscall.SIGINT)
	rest, _ := io.ReadAll(stderr)
	said.Write(rest)
	second.Wait()
	if code := second.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit code %d, want 130; stderr:\n%s", code, said.String())
	}
	if !strings.Contains(said.String(), "autocoder: stopped by interrupt") {
		t.Errorf("the second apply does not say it was stopped:\n%s", said.String())
	}
	first.tty.WriteString("q\n")
	if screen, code := first.end(); code != 0 {
		t.Errorf("apply -i, told to quit, exit %d:\n%s", code, screen)
	}
	g.AssertUnchanged(before)
}
