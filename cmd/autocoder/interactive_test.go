package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/creack/pty"
)

const threeSteps = `~~~~~act
write_file a.txt
~~~~~
~~~~~text
alpha
~~~~~

~~~~~act
write_file b.txt
~~~~~
~~~~~text
beta
~~~~~

~~~~~act
write_file c.txt
~~~~~
~~~~~text
gamma
~~~~~
`

// apply -i through a real pseudo-terminal (github.com/creack/pty: the
// command sees a terminal on its standard input, as a user's shell gives
// it): each step's diff, then the answer typed: apply, skip, apply.
func TestApplyInteractiveThroughAPty(t *testing.T) {
	if testing.Short() {
		t.Skip("drives apply -i through a terminal: slow; runs without -short")
	}
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"README": "hello\n"})
	screen, err := applyInteractive(t, g, "a", "s", "a")
	if err != nil {
		t.Fatalf("exit: %v\n%s", err, screen)
	}
	for _, want := range []string{"apply step axon-1?", "+alpha", "apply step axon-2?", "+beta", "apply step axon-3?", "+gamma"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, screen)
		}
	}
	if log := g.Git("log", "--format=%s", "main..autocoder/main"); strings.Count(log, "\n") != 2 || strings.Contains(log, "b.txt") {
		t.Errorf("steps on the branch:\n%s", log)
	}
	if _, ok := g.Read("b.txt"); ok {
		t.Error("the skipped step was applied")
	}
	if g.MustRead("c.txt") != "gamma\n" {
		t.Error("the step after the skipped one was not applied")
	}
	g.AssertClean()
}

// Quit keeps the steps applied before it and applies none after; the
// report says so.
func TestApplyInteractiveQuit(t *testing.T) {
	if testing.Short() {
		t.Skip("drives apply -i through a terminal: slow; runs without -short")
	}
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"README": "hello\n"})
	screen, _ := applyInteractive(t, g, "a", "q")
	if strings.Contains(screen, "apply step axon-3?") {
		t.Errorf("asked again after quit:\n%s", screen)
	}
	if !strings.Contains(screen, "you quit here") {
		t.Errorf("the report does not say the rest was not applied because of quit:\n%s", screen)
	}
	if log := g.Git("log", "--format=%s", "main..autocoder/main"); strings.Count(log, "\n") != 1 {
		t.Errorf("steps on the branch:\n%s", log)
	}
	for _, f := range []string{"b.txt", "c.txt"} {
		if _, ok := g.Read(f); ok {
			t.Errorf("%s was applied after quit", f)
		}
	}
	g.AssertClean()
}

// applyInteractive runs apply -i on threeSteps in a pseudo-terminal,
// typing each answer when its question shows, and returns the screen and
// how the command ended.
func applyInteractive(t *testing.T, g *gittest.Repo, answers ...string) (string, error) {
	t.Helper()
	resp := filepath.Join(t.TempDir(), "plan.md")
	os.WriteFile(resp, []byte(threeSteps), 0o666)
	cmd := exec.Command(os.Args[0], "-C", g.Dir, "apply", "-i", resp)
	cmd.Env = append(os.Environ(), "AUTOCODER_TEST_AS_BINARY=1")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := tty.Read(b)
			mu.Lock()
			out.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	waitFor := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			mu.Lock()
			got := strings.Count(out.String(), "[a]pply, [s]kip, [q]uit")
			mu.Unlock()
			if got >= n {
				return
			}
		}
		mu.Lock()
		defer mu.Unlock()
		cmd.Process.Kill()
		t.Fatalf("no question %d after 20s; the terminal shows:\n%s", n, out.String())
	}
	for i, answer := range answers {
		waitFor(i + 1)
		io.WriteString(tty, answer+"\n")
	}
	err = cmd.Wait()
	time.Sleep(50 * time.Millisecond) // the reader drains what the command wrote last
	mu.Lock()
	defer mu.Unlock()
	return out.String(), err
}

// Without a terminal, apply -i refuses (exit 2) and changes nothing: the
// answers would otherwise come from whatever is piped in.
func TestApplyInteractiveNeedsATerminal(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"README": "hello\n"})
	before := g.Snapshot()
	resp := filepath.Join(t.TempDir(), "plan.md")
	os.WriteFile(resp, []byte(threeSteps), 0o666)
	cmd := exec.Command(os.Args[0], "-C", g.Dir, "apply", "-i", resp)
	cmd.Env = append(os.Environ(), "AUTOCODER_TEST_AS_BINARY=1")
	cmd.Stdin = strings.NewReader("a\na\na\n")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "apply -i asks on a terminal") {
		t.Fatalf("err %v\n%s", err, out)
	}
	g.AssertUnchanged(before)
}
