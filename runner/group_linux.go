//go:build linux

package runner

import (
	"os"
	"os/exec"
	"syscall"
	"unsafe"
)

// groupPrep is what a Linux group needs from before Start: the reaper's
// pipe (reaper_linux.go) and the run token that marks everything the
// program starts (the fallback sweep, sweep_linux.go).
type groupPrep struct {
	token           string
	status, statusW *os.File // the reaper's pipe; nil when the program runs without one
}

// reaperExe is autocoder's own executable, also when it was replaced or
// removed on disk since it started.
const reaperExe = "/proc/self/exe"

func (p groupPrep) env() []string { return []string{runTokenVar + "=" + p.token} }

// prepareGroup makes cmd start the program under a reaper of its own:
// autocoder's executable again, with argv[0] reaperArg0, the program's path
// and its argv. A program that cannot be found is left to Start, which
// reports it.
func prepareGroup(cmd *exec.Cmd) groupPrep {
	becomeSubreaper()
	setpgid(cmd)
	p := groupPrep{token: newRunToken()}
	if cmd.Err != nil {
		return p
	}
	if _, err := os.Stat(reaperExe); err != nil {
		// No /proc (a bare container): the process group and the token
		// sweep are what is left.
		return p
	}
	r, w, err := os.Pipe()
	if err != nil {
		return p // Start fails alike for want of descriptors
	}
	cmd.Args = append([]string{reaperArg0, cmd.Path}, cmd.Args...)
	cmd.Path = reaperExe
	cmd.ExtraFiles = []*os.File{w}
	p.status, p.statusW = r, w
	return p
}

// pgroup is the program's reaper, which leads a process group of its own
// (see group_unix.go), and the run token of what the program starts.
type pgroup struct {
	pgid   int // the reaper's pid and group (without a reaper: the program's)
	reaper bool
	token  string
	report chan reaperReport // the reaper's report, once its pipe ended
	got    reaperReport
}

func startGroup(cmd *exec.Cmd, p groupPrep) (group, error) {
	g := &pgroup{pgid: cmd.Process.Pid, token: p.token, report: make(chan reaperReport, 1), reaper: p.status != nil}
	if p.status == nil {
		close(g.report)
		return g, nil
	}
	p.statusW.Close()
	go func() {
		g.report <- readReport(p.status)
		p.status.Close()
	}()
	return g, nil
}

func (g *pgroup) waitExited() { waitExited(g.pgid) }

// stop asks the reaper to send SIGTERM to everything the program runs
// (without a reaper, SIGTERM goes to the program's group).
func (g *pgroup) stop() {
	if g.reaper {
		_ = syscall.Kill(g.pgid, syscall.SIGTERM)
	} else {
		_ = syscall.Kill(-g.pgid, syscall.SIGTERM)
	}
}

// kill asks the reaper to kill everything the program runs (without a
// reaper, SIGKILL goes to the program's group).
func (g *pgroup) kill() {
	if g.reaper {
		_ = syscall.Kill(g.pgid, syscall.SIGUSR1)
	} else {
		_ = syscall.Kill(-g.pgid, syscall.SIGKILL)
	}
}

// afterWait takes the reaper's report. A reaper that did not say the
// program's end was killed (by the program, which can: it runs as the same
// user): its orphans came to autocoder, the subreaper above it, and the
// fallback sweep ends the program's tree and whatever carries its token.
func (g *pgroup) afterWait() {
	g.got = <-g.report
	if !g.got.exited && g.got.startErr == nil {
		sweep(g.got.pid, g.token)
	}
}

// outcome is the program's exit code (or the reaper's, when it was killed)
// and the error that kept the program from starting.
func (g *pgroup) outcome(ps *os.ProcessState) (int, error) {
	if g.got.startErr != nil {
		return -1, g.got.startErr
	}
	if g.got.exited {
		if g.got.status.Signaled() {
			return -int(g.got.status.Signal()), nil
		}
		return g.got.status.ExitStatus(), nil
	}
	return exitCode(ps), nil
}

func (g *pgroup) release() {}

// waitExited blocks until the process pid has exited, without reaping it
// (waitid with WNOWAIT), so that its pid and group id stay reserved until
// cmd.Wait. Errors (none are expected for our own child) end the wait.
func waitExited(pid int) {
	const (
		pPID    = 1          // P_PID
		wExited = 0x4        // WEXITED
		wNoWait = 0x01000000 // WNOWAIT
	)
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), wExited|wNoWait, 0, 0)
		if errno != syscall.EINTR {
			return
		}
	}
}
