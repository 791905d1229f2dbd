//go:build darwin

package runner

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// waitExited blocks until the process pid has exited, without reaping it,
// so that its pid and group id stay reserved until cmd.Wait. macOS has no
// waitid(WNOWAIT) that Go can call; a kqueue EVFILT_PROC/NOTE_EXIT event
// says the same without reaping. A child that is already a zombie cannot
// be registered (ESRCH): it has exited. Other errors (none are expected
// for our own child) end the wait, as on Linux.
func waitExited(pid int) {
	kq, err := unix.Kqueue()
	if err != nil {
		return
	}
	defer unix.Close(kq)
	var ev unix.Kevent_t
	unix.SetKevent(&ev, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev.Fflags = unix.NOTE_EXIT
	out := make([]unix.Kevent_t, 1)
	for {
		n, err := unix.Kevent(kq, []unix.Kevent_t{ev}, out, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n > 0 {
			return // NOTE_EXIT, or EV_ERROR (ESRCH: already a zombie)
		}
	}
}

// groupPrep has nothing to carry on macOS: the group kill is the sweep
// (there is no subreaper to find what left the group).
type groupPrep struct{}

func (groupPrep) env() []string { return nil }

func prepareGroup(cmd *exec.Cmd) groupPrep { setpgid(cmd); return groupPrep{} }

// pgroup is the program's process group (see group_unix.go).
type pgroup struct{ pgid int }

func startGroup(cmd *exec.Cmd, _ groupPrep) (group, error) {
	return pgroup{pgid: cmd.Process.Pid}, nil
}

func (g pgroup) waitExited() { waitExited(g.pgid) }
func (g pgroup) stop()       { _ = syscall.Kill(-g.pgid, syscall.SIGTERM) }
func (g pgroup) kill()       { _ = syscall.Kill(-g.pgid, syscall.SIGKILL) }
func (pgroup) afterWait()    {}
func (pgroup) release()      {}

// outcome is the program's exit code; a program that could not start
// failed at Start already.
func (pgroup) outcome(ps *os.ProcessState) (int, error) { return exitCode(ps), nil }
