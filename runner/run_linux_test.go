//go:build linux

package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func run(t *testing.T, s Spec) Result {
	t.Helper()
	res, err := Run(context.Background(), s)
	if err != nil {
		t.Fatalf("Run(%+v): %v", s, err)
	}
	return res
}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		spec Spec
		want int
	}{
		{Spec{Command: "true"}, 0},
		{Spec{Command: "false"}, 1},
		{Spec{Command: "exit 3", Shell: true}, 3},
		{Spec{Command: "sh", Args: []string{"-c", "exit 42"}}, 42},
		// A signal gives minus its number, as Python's returncode.
		{Spec{Command: "kill -TERM $$", Shell: true}, -int(syscall.SIGTERM)},
	} {
		res := run(t, tc.spec)
		if res.ExitCode != tc.want || res.TimedOut || res.Truncated {
			t.Errorf("%+v: exit %d timedOut %v truncated %v, want exit %d", tc.spec, res.ExitCode, res.TimedOut, res.Truncated, tc.want)
		}
	}
}

func TestCapturesBothStreams(t *testing.T) {
	res := run(t, Spec{Command: "echo out; echo err >&2; echo more", Shell: true})
	if string(res.Stdout) != "out\nmore\n" || string(res.Stderr) != "err\n" {
		t.Fatalf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
	if res.StdoutBytes != 9 || res.StderrBytes != 4 || res.Truncated {
		t.Fatalf("counts %d %d truncated %v", res.StdoutBytes, res.StderrBytes, res.Truncated)
	}
}

func TestStdinIsEmpty(t *testing.T) {
	// cat would wait for ever on an inherited terminal or pipe.
	res := run(t, Spec{Command: "cat", Timeout: 5 * time.Second})
	if res.TimedOut || len(res.Stdout) != 0 || res.ExitCode != 0 {
		t.Fatalf("cat: %+v", res)
	}
}

func TestOutputIsCapped(t *testing.T) {
	// 8 MB through a 1000-byte cap: kept the first and the last 500 bytes
	// with a line that says how much was cut between them, counted all, and
	// the stderr stream is capped on its own.
	res := run(t, Spec{Command: "printf START; head -c 8000000 /dev/zero; printf END; echo small >&2", Shell: true, MaxOutput: 1000})
	out := string(res.Stdout)
	marker := "\n[... autocoder cut 7999008 bytes here: the output was longer than 1000 bytes; its start and its end are kept ...]\n"
	if !strings.HasPrefix(out, "START") || !strings.HasSuffix(out, "END") || len(out) != 1000+len(marker) ||
		out[500:500+len(marker)] != marker || res.StdoutBytes != 8000008 || !res.Truncated {
		t.Fatalf("kept %d bytes (%q … %q), counted %d, truncated %v", len(out), out[:min(len(out), 20)], out[max(0, len(out)-140):], res.StdoutBytes, res.Truncated)
	}
	if string(res.Stderr) != "small\n" {
		t.Fatalf("stderr %q", res.Stderr)
	}
	if cap(res.Stdout) > 64<<10 {
		t.Fatalf("the capture grew to %d bytes for a 1000-byte cap", cap(res.Stdout))
	}

	exact := run(t, Spec{Command: "printf 12345", Shell: true, MaxOutput: 5})
	if string(exact.Stdout) != "12345" || exact.Truncated {
		t.Fatalf("exactly at the cap: %q truncated %v", exact.Stdout, exact.Truncated)
	}
}

// gone reports whether pid has died: no such process, or a zombie waiting
// for a parent that may not reap it (PID 1 in a container often does not).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	// "pid (comm) S ...": the state follows the last ")".
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// readPid waits briefly for the program to have written the pid file.
func readPid(t *testing.T, name string) int {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("the program wrote no pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid file %q: %v", data, err)
	}
	return pid
}

func assertGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d is still running", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	start := time.Now()
	res, err := Run(context.Background(), Spec{
		Command: `sleep 30 & echo $! > pid; echo started; sleep 30`,
		Shell:   true, Dir: dir, Timeout: 300 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("Run took %v for a 300ms timeout", el)
	}
	if !res.TimedOut || res.ExitCode != -int(syscall.SIGTERM) {
		t.Fatalf("timedOut %v exit %d, want a timeout ended by SIGTERM", res.TimedOut, res.ExitCode)
	}
	if string(res.Stdout) != "started\n" {
		t.Fatalf("output before the timeout was lost: %q", res.Stdout)
	}
	assertGone(t, readPid(t, pidFile))
}

func TestTimeoutEscalatesToKill(t *testing.T) {
	dir := t.TempDir()
	// An ignored SIGTERM is inherited by sleep too: only SIGKILL ends them.
	start := time.Now()
	res := run(t, Spec{
		Command: `trap "" TERM; sleep 30 & echo $! > pid; sleep 30`,
		Shell:   true, Dir: dir, Timeout: 200 * time.Millisecond, Grace: 200 * time.Millisecond,
	})
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("Run took %v", el)
	}
	if !res.TimedOut || res.ExitCode != -int(syscall.SIGKILL) {
		t.Fatalf("timedOut %v exit %d, want SIGKILL", res.TimedOut, res.ExitCode)
	}
	assertGone(t, readPid(t, filepath.Join(dir, "pid")))
}

func TestStrayIsKilledWhenTheProgramEnds(t *testing.T) {
	dir := t.TempDir()
	// The background sleep holds stdout; Run must not wait 30 s for it.
	start := time.Now()
	res := run(t, Spec{Command: `sleep 30 & echo $! > pid; echo done`, Shell: true, Dir: dir, Timeout: 20 * time.Second})
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("Run took %v: it waited for the background process", el)
	}
	if res.TimedOut || res.ExitCode != 0 || string(res.Stdout) != "done\n" {
		t.Fatalf("%+v", res)
	}
	assertGone(t, readPid(t, filepath.Join(dir, "pid")))
}

// TestMain lets the test binary serve as a helper program: with
// RUNNER_TEST_HELPER=escape it leaves its process group (setsid) and sleeps,
// holding the output pipe it inherited, as a daemon would.
func TestMain(m *testing.M) {
	switch os.Getenv("RUNNER_TEST_HELPER") {
	case "escape", "newgroup":
		var err error
		if os.Getenv("RUNNER_TEST_HELPER") == "escape" {
			_, err = syscall.Setsid()
		} else {
			err = syscall.Setpgid(0, 0) // a group of its own, in autocoder's session
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "leave the group:", err)
			os.Exit(2)
		}
		os.WriteFile("escaped", nil, 0o644) // tell the test it is out
		// Far longer than any test waits: a helper that lived its life out
		// says so, and that Run waited for it.
		time.Sleep(60 * time.Second)
		os.WriteFile("slept", nil, 0o644)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestEscapedProcessDoesNotHoldRun(t *testing.T) {
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The helper leaves the group, so the group kill misses it, and it keeps
	// stdout open. Run gives up on the pipe after Grace rather than waiting.
	res := run(t, Spec{Command: `"$1" & echo $! > pid; while [ ! -e escaped ]; do sleep 0.01; done; echo hi`, Args: []string{self}, Shell: true, Dir: dir,
		Env: []string{"RUNNER_TEST_HELPER=escape"}, Grace: 200 * time.Millisecond})
	// Run did not wait for the pipe's last holder: the helper never lived
	// out its minute (no bound on the wall clock, which a busy machine
	// stretches).
	if _, err := os.Stat(filepath.Join(dir, "slept")); err == nil {
		t.Fatal("Run waited until the escaped helper ended on its own")
	}
	if string(res.Stdout) != "hi\n" {
		t.Fatalf("stdout %q", res.Stdout)
	}
	// Nothing a step starts outlives it: autocoder is the subreaper of what
	// its programs leave, so the escapee is found and killed too.
	assertGone(t, readPid(t, filepath.Join(dir, "pid")))
}

// TestSetsidEscapeeIsKilled: a process that left the program's group and
// session (setsid), with or without the environment it inherited, is
// killed when the program ends, at its timeout and when the context is
// cancelled, and Run does not return before it is gone.
func TestSetsidEscapeeIsKilled(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		launch string
		spec   func(*Spec)
	}{
		{"program ends", `"$1"`, func(*Spec) {}},
		{"env cleared", `env -i RUNNER_TEST_HELPER=escape "$1"`, func(*Spec) {}},
		{"timeout", `"$1"`, func(s *Spec) { s.Command += "; sleep 30"; s.Timeout = 500 * time.Millisecond }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := Spec{Command: tc.launch + ` & echo $! > pid; while [ ! -e escaped ]; do sleep 0.01; done; echo hi`, Args: []string{self},
				Shell: true, Dir: dir, Env: []string{"RUNNER_TEST_HELPER=escape"}, Grace: 200 * time.Millisecond}
			tc.spec(&s)
			Run(context.Background(), s)
			pid := readPid(t, filepath.Join(dir, "pid"))
			if !gone(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("the process that left with setsid (pid %d) outlived its step", pid)
			}
		})
	}
}

// TestDoubleForkIntoAnEmptyEnvironmentIsKilled: issue 18's escapee. The
// program forks twice (its parent, a subshell, is gone at once, so it is an
// orphan), leaves the program's process group for one of its own (inside
// autocoder's session) or for a session of its own, with an empty
// environment (no run token), and sleeps. When the step ends it is gone:
// Run returns only once everything the program started is reaped, so one
// look at /proc says it.
func TestDoubleForkIntoAnEmptyEnvironmentIsKilled(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"newgroup", "escape"} {
		for _, how := range []string{"ends", "timeout"} {
			t.Run(mode+" "+how, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				s := Spec{Command: `( env -i RUNNER_TEST_HELPER=` + mode + ` "$1" & echo $! > pid ); while [ ! -e escaped ]; do sleep 0.01; done; echo hi`,
					Args: []string{self}, Shell: true, Dir: dir, Grace: 200 * time.Millisecond}
				if how == "timeout" {
					// Long enough for the escape on a loaded machine (the
					// "hi" below needs it first): 300 ms was not.
					s.Command += "; sleep 30"
					s.Timeout = 3 * time.Second
				}
				res, err := Run(context.Background(), s)
				if err != nil || string(res.Stdout) != "hi\n" {
					t.Fatalf("Run: %v, %+v", err, res)
				}
				pid := readPid(t, filepath.Join(dir, "pid"))
				if !gone(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Fatalf("the escapee (pid %d, %s) outlived its step", pid, mode)
				}
			})
		}
	}
}

// TestOtherChildrenAreLeftAlone: a program's end kills only what descends
// from the program. A child autocoder started itself (git, another
// program), also one in a session of its own, is not touched.
func TestOtherChildrenAreLeftAlone(t *testing.T) {
	t.Parallel()
	other := exec.Command("sleep", "30")
	other.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	run(t, Spec{Command: "sleep 30 & echo started", Shell: true})
	run(t, Spec{Command: "sleep 30 & exit 3", Shell: true, Timeout: 100 * time.Millisecond, Grace: 50 * time.Millisecond})
	if gone(other.Process.Pid) {
		t.Fatal("a program's end killed a process it did not start")
	}
}

// TestProgramThatKillsItsReaper: a program can kill the reaper autocoder
// runs it under (it runs as the same user). Its tree then comes to
// autocoder, the subreaper above, and the fallback sweep ends it.
func TestProgramThatKillsItsReaper(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res, err := Run(context.Background(), Spec{Command: `sleep 30 & echo $! > pid; kill -9 $PPID; sleep 30`, Shell: true, Dir: dir,
		Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != -int(syscall.SIGKILL) {
		t.Errorf("exit code %d, want the reaper's -9", res.ExitCode)
	}
	pid := readPid(t, filepath.Join(dir, "pid"))
	if !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the program's child (pid %d) outlived its step", pid)
	}
}

func TestCancel(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res, err := Run(ctx, Spec{Command: `sleep 30 & echo $! > pid; sleep 30`, Shell: true, Dir: dir})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res.TimedOut || res.ExitCode >= 0 {
		t.Fatalf("%+v", res)
	}
	assertGone(t, readPid(t, filepath.Join(dir, "pid")))

	// Already cancelled: nothing starts.
	marker := filepath.Join(dir, "ran")
	if _, err := Run(ctx, Spec{Command: "touch " + marker, Shell: true}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a program ran under a cancelled context")
	}
}

func TestEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("AUTOCODER_RUNNER_INHERITED", "kept")
	t.Setenv("AUTOCODER_RUNNER_OVERRIDDEN", "old")
	res := run(t, Spec{
		Command: `echo "$AUTOCODER_RUNNER_INHERITED $AUTOCODER_RUNNER_OVERRIDDEN $NEW"; pwd -P`,
		Shell:   true, Dir: dir,
		Env: []string{"AUTOCODER_RUNNER_OVERRIDDEN=new", "NEW=x y"},
	})
	if want := "kept new x y\n" + real + "\n"; string(res.Stdout) != want {
		t.Fatalf("stdout %q, want %q", res.Stdout, want)
	}
}

func TestShellArgsArePositional(t *testing.T) {
	res := run(t, Spec{Command: `echo "$1-$2"`, Shell: true, Args: []string{"a b", "c"}})
	if string(res.Stdout) != "a b-c\n" {
		t.Fatalf("stdout %q", res.Stdout)
	}
	// Without Shell, arguments are never interpreted.
	res = run(t, Spec{Command: "echo", Args: []string{"$HOME", ";", "x"}})
	if string(res.Stdout) != "$HOME ; x\n" {
		t.Fatalf("stdout %q", res.Stdout)
	}
}

func TestRelativeCommandIsTakenFromDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.sh"), []byte("#!/bin/sh\necho hello\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := run(t, Spec{Command: "./hello.sh", Dir: dir})
	if string(res.Stdout) != "hello\n" {
		t.Fatalf("stdout %q", res.Stdout)
	}
}

func TestStartErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "noexec.sh"), []byte("echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		spec Spec
		is   error  // the underlying error class
		hint string // a piece of the hint
	}{
		{"missing binary", Spec{Command: "autocoder-no-such-program", Args: []string{"x"}}, exec.ErrNotFound, "not on PATH"},
		{"missing dir", Spec{Command: "true", Dir: filepath.Join(dir, "nope")}, fs.ErrNotExist, "does not exist"},
		{"not executable", Spec{Command: "./noexec.sh", Dir: dir}, fs.ErrPermission, "chmod +x"},
		{"empty", Spec{Command: ""}, nil, "give the program"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(context.Background(), tc.spec)
			var se *StartError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want *StartError", err, err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("err = %v, want it to wrap %v", err, tc.is)
			}
			if !strings.Contains(se.Hint(), tc.hint) {
				t.Errorf("hint %q does not say %q", se.Hint(), tc.hint)
			}
			if !strings.Contains(err.Error(), "start") {
				t.Errorf("error %q does not say what failed", err)
			}
			if res.Duration != 0 || res.Stdout != nil {
				t.Errorf("a program that did not start has a result: %+v", res)
			}
		})
	}
}

// No descriptor is left open by a run, whatever its end.
func TestNoDescriptorLeak(t *testing.T) {
	count := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	before := count()
	run(t, Spec{Command: "echo x", Shell: true})
	run(t, Spec{Command: "sleep 5", Shell: true, Timeout: 50 * time.Millisecond, Grace: 50 * time.Millisecond})
	Run(context.Background(), Spec{Command: "autocoder-no-such-program"})
	if after := count(); after > before {
		t.Fatalf("%d descriptors open before, %d after", before, after)
	}
}

func TestZeroSpecUsesDefaults(t *testing.T) {
	res := run(t, Spec{Command: "head", Args: []string{"-c", "2000000", "/dev/zero"}})
	// DefaultMaxOutput bytes kept, and the line that says what was cut.
	if n := len(res.Stdout); n < DefaultMaxOutput || n > DefaultMaxOutput+200 || !res.Truncated || res.TimedOut || res.StdoutBytes != 2000000 {
		t.Fatalf("kept %d of %d, truncated %v, timedOut %v", len(res.Stdout), res.StdoutBytes, res.Truncated, res.TimedOut)
	}
}

// BenchmarkRunTrue measures the overhead of one run: fork, exec, group
// handling and reaping.
func BenchmarkRunTrue(b *testing.B) {
	for b.Loop() {
		if _, err := Run(context.Background(), Spec{Command: "true"}); err != nil {
			b.Fatal(err)
		}
	}
}

// A live program's output is capped per report as Run's is: each Take
// keeps the start and the end of what was written since the last one, with
// the cut said, and a later Take has only the newer output.
func TestLiveOutputIsCappedPerTake(t *testing.T) {
	dir := t.TempDir()
	go1 := filepath.Join(dir, "go1")
	l, err := Start(context.Background(), Spec{Shell: true, Dir: dir, MaxOutput: 64, Timeout: time.Minute,
		Command: "printf START; seq 1 2000; printf END; touch burst1; while [ ! -f go1 ]; do sleep 0.01; done; printf NEXT; seq 1 3; echo; touch done1; sleep 60"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Stop()
	waitFile := func(name string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				return
			}
		}
		t.Fatalf("the program never wrote %s", name)
	}
	waitFile("burst1")
	time.Sleep(50 * time.Millisecond) // the pipe's reader catches up
	out, _, _ := l.Take()
	s := string(out)
	if !strings.HasPrefix(s, "START1\n2\n") || !strings.HasSuffix(s, "1999\n2000\nEND") ||
		!strings.Contains(s, "[... autocoder cut ") || strings.Contains(s, "\n1000\n") {
		t.Fatalf("first report %q", s)
	}
	os.WriteFile(go1, nil, 0o666)
	waitFile("done1")
	time.Sleep(50 * time.Millisecond)
	if o, _, _ := l.Take(); string(o) != "NEXT1\n2\n3\n\n" {
		t.Fatalf("second report %q: not only the new output", o)
	}
}
