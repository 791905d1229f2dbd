//go:build linux || darwin || windows

package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Run runs the program in its own process group (a job object on Windows)
// in s.Dir and waits for it. At s.Timeout, or when ctx is cancelled, it
// stops the whole group: SIGTERM, then SIGKILL after s.Grace (on Windows a
// Ctrl-Break, then the job is terminated), so that processes the program
// started die with it. When the program ends on its own, whatever it left
// running is killed too (on Linux whatever it did to leave: its reaper,
// reaper_linux.go, ends every descendant before Run returns): nothing a
// step starts outlives the step. The per-system part is a group:
// group_linux.go, group_darwin.go, group_windows.go.
//
// Standard input is empty. A non-zero exit is not an error (Result.ExitCode);
// the error is a *StartError when the program could not start, or wraps
// ctx.Err() when ctx was cancelled (the Result then holds what the program
// wrote until then).
func Run(ctx context.Context, s Spec) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("run %q: %w", s.name(), err)
	}
	if s.Command == "" {
		return Result{}, &StartError{Command: s.name(), Dir: s.Dir, Err: errors.New("the command is empty"),
			Fix: "give the program to run"}
	}
	if s.Dir != "" {
		// The kernel's answer to a missing directory is the same ENOENT as
		// for a missing program; look first to say which.
		if fi, err := os.Stat(s.Dir); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return Result{}, startError(s, &fs.PathError{Op: "chdir", Path: s.Dir, Err: err})
		} else if !fi.IsDir() {
			return Result{}, startError(s, &fs.PathError{Op: "chdir", Path: s.Dir, Err: syscall.ENOTDIR})
		}
	}
	timeout, grace, max := s.Timeout, s.Grace, s.MaxOutput
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if grace <= 0 {
		grace = DefaultGrace
	}
	if max <= 0 {
		max = DefaultMaxOutput
	}

	var cmd *exec.Cmd
	if s.Shell {
		sh, err := shellPath()
		if err != nil {
			return Result{}, startError(s, err)
		}
		cmd = exec.Command(sh, append([]string{"-c", s.Command, "sh"}, s.Args...)...)
	} else {
		cmd = exec.Command(s.Command, s.Args...)
	}
	cmd.Dir = s.Dir
	// The group's own variables (Linux: the token that marks everything
	// the program starts, see sweep) come first: exec keeps the last of
	// duplicate names, so the step's own entries override ours.
	prep := prepareGroup(cmd)
	cmd.Env = append(append(os.Environ(), prep.env()...), s.Env...)

	// Our own pipes rather than exec's: exec's Wait also waits for its
	// copying goroutines, that is for every holder of the pipe to exit, and a
	// background grandchild would hold Wait until the timeout even after the
	// program itself is done.
	outR, outW, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("run %q: make a pipe: %w", s.name(), err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return Result{}, fmt.Errorf("run %q: make a pipe: %w", s.name(), err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW

	start := time.Now()
	err = cmd.Start()
	// The child has its copies; ours must go or the readers never see EOF.
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return Result{}, startError(s, err)
	}

	stdout, stderr := &capture{max: max}, &capture{max: max}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); stdout.readAll(outR, s.OnOutput, false) }()
	go func() { defer readers.Done(); stderr.readAll(errR, s.OnOutput, true) }()

	g, err := startGroup(cmd, prep)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		outR.Close()
		errR.Close()
		readers.Wait()
		return Result{}, fmt.Errorf("run %q: %w", s.name(), err)
	}
	defer g.release()
	exited := make(chan struct{})
	go func() {
		g.waitExited()
		close(exited)
	}()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var timedOut, cancelled bool
	select {
	case <-exited:
	case <-timer.C:
		timedOut = stopGroup(g, grace, exited)
	case <-ctx.Done():
		cancelled = stopGroup(g, grace, exited)
	}
	// Sweep what the program left behind in its group.
	g.kill()
	waitErr := cmd.Wait()
	dur := time.Since(start)
	// And what left the group (Linux: the reaper did, unless the program
	// killed it; then the fallback sweep).
	g.afterWait()
	code, startErr := g.outcome(cmd.ProcessState)

	// The pipes close when the last process holding them is gone. One that
	// left the group (setsid) could hold them for ever: wait a grace, then
	// close our ends, which ends the reads.
	done := make(chan struct{})
	go func() { readers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		outR.Close()
		errR.Close()
		<-done
	}
	outR.Close()
	errR.Close()
	if startErr != nil {
		// The reaper started, the program did not (Linux).
		return Result{}, startError(s, &fs.PathError{Op: "fork/exec", Path: s.Command, Err: startErr})
	}

	res := Result{
		Stdout:      stdout.bytes(),
		Stderr:      stderr.bytes(),
		StdoutBytes: stdout.total,
		StderrBytes: stderr.total,
		Truncated:   stdout.total > int64(max) || stderr.total > int64(max),
		TimedOut:    timedOut,
		Duration:    dur,
		ExitCode:    code,
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return res, fmt.Errorf("run %q: wait: %w", s.name(), waitErr)
	}
	if cancelled {
		return res, fmt.Errorf("run %q: stopped: %w", s.name(), context.Cause(ctx))
	}
	return res, nil
}

// stopGroup stops the group after a timeout or a cancel: SIGTERM, then
// SIGKILL when the program has not exited after grace. It reports false when
// the program had exited already, so that a program that finished just as
// the timer fired is not reported as timed out.
func stopGroup(g group, grace time.Duration, exited <-chan struct{}) bool {
	select {
	case <-exited:
		return false
	default:
	}
	g.stop()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-exited:
	case <-t.C:
		g.kill()
		<-exited
	}
	return true
}

// group is a program with every process it starts: a process group on
// unix, a job object on Windows. prepareGroup (per system) sets up the
// command before Start, startGroup makes the group of the started command.
type group interface {
	// waitExited blocks until the program itself has exited, without
	// reaping it, so that what names the group stays valid until Wait.
	waitExited()
	// stop asks every process of the group to end (SIGTERM).
	stop()
	// kill ends every process of the group at once (SIGKILL).
	kill()
	// afterWait ends what the program started and the group kill missed,
	// once the program is reaped.
	afterWait()
	// outcome is the program's exit code (exitCode), or the error that kept
	// it from starting, once afterWait ran.
	outcome(ps *os.ProcessState) (int, error)
	// release frees what the group holds.
	release()
}

// exitCode is the exit status, or minus the signal that ended the program.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -int(ws.Signal())
	}
	return ps.ExitCode()
}

// capture keeps the start and the end of a stream, max bytes in all, and
// counts everything: the end of a failing build's output is where its error
// is, and the start says what ran. bytes joins the two with a line that
// says how much was cut.
type capture struct {
	max   int
	head  []byte
	tail  []byte // grows to twice what is kept, then drops its front
	total int64
}

func (c *capture) readAll(f *os.File, on func(bool, []byte), isErr bool) {
	b := make([]byte, 32<<10)
	for {
		n, err := f.Read(b)
		if n > 0 {
			c.add(b[:n])
			if on != nil {
				on(isErr, b[:n])
			}
		}
		if err != nil {
			return
		}
	}
}

func (c *capture) add(p []byte) {
	c.total += int64(len(p))
	if room := c.max/2 - len(c.head); room > 0 {
		take := min(room, len(p))
		c.head = append(c.head, p[:take]...)
		p = p[take:]
	}
	c.tail = append(c.tail, p...)
	if keep := c.max - c.max/2; len(c.tail) > 2*keep {
		c.tail = append([]byte(nil), c.tail[len(c.tail)-keep:]...)
	}
}

func (c *capture) bytes() []byte {
	tail := c.tail
	if keep := c.max - c.max/2; len(tail) > keep {
		tail = tail[len(tail)-keep:]
	}
	out := append([]byte(nil), c.head...)
	if cut := c.total - int64(len(c.head)) - int64(len(tail)); cut > 0 {
		out = append(out, fmt.Sprintf("\n[... autocoder cut %d bytes here: the output was longer than %d bytes; its start and its end are kept ...]\n", cut, c.max)...)
	}
	return append(out, tail...)
}
