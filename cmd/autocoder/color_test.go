package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/creack/pty"
)

// colourResponse applies two steps and fails the third; its reason carries
// an escape sequence of its own, which must reach the terminal escaped.
const colourResponse = `~~~~~act
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

#####--
{"metadata": {"step_id": "evil", "reason": "ok\u001b[2J"}, "file_operations": [{"action_type": "replace_file", "path": "a.txt",
 "modify_content": [{"old_content": "not there", "new_content": "x"}]}]}
--#####
`

const colourDryRun = "~~~~~act\nwrite_file d.txt\n~~~~~\n~~~~~text\ndelta\n~~~~~\n" +
	"#####--\n" + `{"file_operations": [{"action_type": "create_file", "path": "e.txt", "file_content": "echo\u001b]0;pwned\u0007\n"}]}` + "\n--#####\n"

// ours matches the only escape sequences autocoder writes itself: colour.
var ours = regexp.MustCompile(`\x1b\[(0|1|31|32|33|36)m`)

// On a terminal (a real pseudo-terminal, github.com/creack/pty) the status
// words and a dry run's patch are coloured; the response's own escape
// sequences are still shown escaped, never sent.
func TestColourOnATerminal(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"README": "hello\n"})
	resp := writeResponse(t, colourResponse)
	screen, code := runOnTerminal(t, colourEnv(""), "-C", g.Dir, "apply", resp)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%q", code, screen)
	}
	for _, want := range []string{"\x1b[32mapplied\x1b[0m", "\x1b[31mfailed\x1b[0m"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal lacks %q:\n%q", want, screen)
		}
	}
	onlyOurs(t, screen)
	if !strings.Contains(screen, `\x1b[2J`) {
		t.Errorf("the reason's escape sequence is not shown escaped:\n%q", screen)
	}

	screen, code = runOnTerminal(t, colourEnv(""), "-C", g.Dir, "apply", "--dry-run", writeResponse(t, colourDryRun))
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%q", code, screen)
	}
	for _, want := range []string{"\x1b[32mplanned\x1b[0m", "\x1b[1mdiff --git a/d.txt b/d.txt\x1b[0m",
		"\x1b[36m@@ -0,0 +1 @@\x1b[0m", "\x1b[32m+delta\x1b[0m", `\x1b]0;pwned\x07`} {
		if !strings.Contains(screen, want) {
			t.Errorf("the dry run's terminal lacks %q:\n%q", want, screen)
		}
	}
	onlyOurs(t, screen)
}

// NO_COLOR set to anything (no-color.org) means no colour, on a terminal
// too; set but empty, it is not set.
func TestNoColourWithNO_COLOR(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"README": "hello\n"})
	screen, _ := runOnTerminal(t, colourEnv("1"), "-C", g.Dir, "apply", writeResponse(t, colourResponse))
	if strings.Contains(screen, "\x1b") || !strings.Contains(screen, "applied") {
		t.Errorf("NO_COLOR=1: %q", screen)
	}
	screen, _ = runOnTerminal(t, colourEnv("1"), "-C", g.Dir, "apply", "--dry-run", writeResponse(t, colourDryRun))
	if strings.Contains(screen, "\x1b") || !strings.Contains(screen, "+delta") {
		t.Errorf("NO_COLOR=1, dry run: %q", screen)
	}
	screen, _ = runOnTerminal(t, append(colourEnv(""), "NO_COLOR="), "-C", g.Dir, "apply", "--dry-run", writeResponse(t, colourDryRun))
	if !strings.Contains(screen, "\x1b[32m+delta") {
		t.Errorf("NO_COLOR empty is not set, but there is no colour: %q", screen)
	}
}

// Through a pipe (standard output and standard error), no escape sequence
// at all: the patch is bytes git apply takes, the report text a script
// reads. (A pipe gets the patch's content as the response wrote it,
// control bytes included: apply_dryrun_patch.txtar.)
func TestNoColourThroughAPipe(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"README": "hello\n"})
	plainDryRun := "~~~~~act\nwrite_file d.txt\n~~~~~\n~~~~~text\ndelta\n~~~~~\n"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"apply", writeResponse(t, colourResponse)}, "applied"},
		{[]string{"apply", "--dry-run", writeResponse(t, plainDryRun)}, "+delta"},
	} {
		cmd := exec.Command(os.Args[0], append([]string{"-C", g.Dir}, c.args...)...)
		cmd.Env = colourEnv("")
		var out, errw bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errw
		cmd.Run()
		if all := out.String() + errw.String(); strings.Contains(all, "\x1b") || !strings.Contains(all, c.want) {
			t.Errorf("%v through a pipe:\nstdout %q\nstderr %q", c.args, out.String(), errw.String())
		}
	}
}

// onlyOurs fails if screen holds an escape sequence autocoder did not
// write itself.
func onlyOurs(t *testing.T, screen string) {
	t.Helper()
	if rest := ours.ReplaceAllString(screen, ""); strings.Contains(rest, "\x1b") {
		i := strings.Index(rest, "\x1b")
		t.Errorf("an escape sequence not ours reached the terminal: %q", rest[max(0, i-40):min(len(rest), i+40)])
	}
}

// colourEnv is the environment of a run that may colour: a terminal type
// that has colour, and NO_COLOR as given ("" unset).
func colourEnv(noColor string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "TERM=") {
			env = append(env, kv)
		}
	}
	env = append(env, "AUTOCODER_TEST_AS_BINARY=1", "TERM=xterm-256color")
	if noColor != "" {
		env = append(env, "NO_COLOR="+noColor)
	}
	return env
}

func writeResponse(t *testing.T, text string) string {
	p := filepath.Join(t.TempDir(), "response.md")
	must(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// runOnTerminal runs autocoder with a pseudo-terminal as its standard
// input, output and error, and returns what the terminal received and the
// exit code.
func runOnTerminal(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = env
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var screen bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 4096)
		for {
			n, err := tty.Read(b)
			screen.Write(b[:n])
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		// A hang guard, not a speed target.
		cmd.Process.Kill()
		t.Fatalf("autocoder %s did not finish in 30s", strings.Join(args, " "))
	}
	cmd.Wait()
	return screen.String(), cmd.ProcessState.ExitCode()
}
