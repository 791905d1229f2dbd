// Package runner is the one home of programs: whether a step's program may
// run, running it, and the answer the engine reports for it.
//
// Start with New in policy.go: given the configuration in effect (and the
// flag that allows every program) it returns the Policy txn.Engine asks
// (txn.Options.Programs) and the [verify] command's Verifier
// (txn.Options.Verify), after taking the model API's key out of the
// environment programs inherit (keys.go, seal_linux.go). The Policy judges
// a program by autocoder.toml's [programs] allow list and env list, and by
// the argument rules that keep an allow entry from being widened
// (argrules.go); it runs what it allows with Run, or Start for a program
// that keeps running (LiveProgram), and maps what the program did to a
// step.ProgramResult. The engine decides when a program runs and commits
// what it changed; runner never imports the engine.
//
// Below that are Spec, Run and Start. Run starts a program in a given
// directory, in a process group of its own, with a timeout that stops the
// whole group, and with output captured up to a cap. The process handling
// is run.go, over a group per program: on Linux a reaper process of its
// own, a child subreaper that ends every descendant of the program
// (reaper_linux.go, group_linux.go; sweep_linux.go when the program killed
// its reaper), a process group on macOS (group_unix.go, group_darwin.go)
// and a job object on Windows (group_windows.go). Elsewhere Run says it
// cannot run programs (run_other.go). Nothing outside this package starts
// a process but gitops.Git, which runs git (TestOnlyRunnerStartsProcesses).
package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"time"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/step"
)

// Defaults for the Spec fields left zero. The engine passes the values of
// autocoder.toml; these only keep a zero Spec from running unbounded.
const (
	DefaultTimeout   = config.DefaultProgramTimeout
	DefaultMaxOutput = config.DefaultMaxOutputBytes
	DefaultGrace     = 2 * time.Second
)

// Spec says what to run and within which limits.
type Spec struct {
	// Command is the program (looked up on PATH unless it holds a "/";
	// a relative path is taken from Dir), or with Shell the command line.
	Command string
	// Args are the program's arguments. With Shell they become the shell's
	// positional parameters $1, $2, ...
	Args []string
	// Shell runs Command with /bin/sh -c.
	Shell bool
	// Dir is the working directory; empty means autocoder's own.
	Dir string
	// Env holds "KEY=value" entries added to autocoder's own environment;
	// an entry overrides an inherited variable of the same name.
	Env []string
	// Timeout is how long the program may run; zero means DefaultTimeout.
	// At the timeout the whole process group gets SIGTERM, then SIGKILL
	// after Grace.
	Timeout time.Duration
	// MaxOutput caps the bytes kept of each of stdout and stderr (half from
	// the start, half from the end); zero means DefaultMaxOutput. The rest
	// is read and counted, never kept.
	MaxOutput int
	// Grace is how long the group has between SIGTERM and SIGKILL; zero
	// means DefaultGrace. It also bounds how long Run waits for the output
	// pipes to close once the program is gone.
	Grace time.Duration
	// OnOutput, when set, receives every piece the program writes, as it
	// writes it (stderr false: standard output): a live program's new
	// output between turns (live.go).
	OnOutput func(stderr bool, p []byte)
}

// Result is what a program did. A program that ran is a Result, whatever its
// exit code; Run's error is for a program that could not start or was
// cancelled.
type Result struct {
	// Stdout and Stderr are each stream, or when it wrote more than
	// MaxOutput bytes its first and last MaxOutput/2 bytes around a line
	// that says how many bytes were cut there.
	Stdout, Stderr []byte
	// ExitCode is the program's exit status, or minus the signal number when
	// a signal ended it (-9 after SIGKILL), as Python's subprocess reports
	// it: the feedback of some dialects carries it as "returncode".
	ExitCode int
	TimedOut bool // stopped at Timeout
	// Truncated: a stream wrote more than MaxOutput bytes.
	Truncated bool
	// StdoutBytes and StderrBytes count everything each stream wrote, kept
	// or not.
	StdoutBytes, StderrBytes int64
	Duration                 time.Duration // from start until the program was reaped
}

// StartError is a program that could not be started: not found, not
// executable, or its directory is missing. Hint says what to do.
type StartError struct {
	Command string
	Dir     string
	Err     error
	Fix     string // what to do: the hint
}

func (e *StartError) Error() string {
	return fmt.Sprintf("start %q: %v", e.Command, e.Err)
}

// Unwrap returns the underlying error (exec.ErrNotFound, fs.ErrNotExist,
// fs.ErrPermission, ...).
func (e *StartError) Unwrap() error { return e.Err }

// Class is program failed: the program the step asked for did not run.
func (e *StartError) Class() step.Class { return step.ClassProgramFailed }

// Hint says what to do.
func (e *StartError) Hint() string { return e.Fix }

// ErrUnsupported is returned by Run where programs cannot be run safely:
// stopping a whole process tree needs Linux, macOS or Windows here.
var ErrUnsupported = errors.New("running programs is supported on Linux, macOS and Windows only")

// name is how messages call the program.
func (s Spec) name() string {
	if s.Shell {
		return "sh -c " + s.Command
	}
	return s.Command
}

// startError explains why the program did not start.
func startError(s Spec, err error) error {
	e := &StartError{Command: s.name(), Dir: s.Dir, Err: err}
	switch {
	case errors.Is(err, exec.ErrNotFound):
		e.Fix = fmt.Sprintf("%q is not installed or not on PATH: install it, give its full path, "+
			"or check the spelling of the command", s.Command)
	case errors.Is(err, exec.ErrDot):
		e.Fix = fmt.Sprintf("%q was found only in the current directory, which autocoder does not search: "+
			"write ./%s to mean that file", s.Command, s.Command)
	case isChdir(err):
		e.Fix = fmt.Sprintf("the working directory %q does not exist or is not a directory: create it first "+
			"or run the program elsewhere", s.Dir)
	case isPermission(err):
		e.Fix = fmt.Sprintf("%q is not executable: make it executable (chmod +x) or run it with its interpreter, "+
			"such as sh %s", s.Command, s.Command)
	default:
		e.Fix = "check the command and its working directory"
	}
	return e
}

func isChdir(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Op == "chdir"
}

func isPermission(err error) bool {
	return errors.Is(err, fs.ErrPermission)
}
