//go:build linux

package runner

import (
	"os/exec"
	"syscall"
	"unsafe"
)

// groupPrep is what a Linux group needs from before Start: the run token
// that marks everything the program starts (see sweep).
type groupPrep struct{ token string }

func (p groupPrep) env() []string { return []string{runTokenVar + "=" + p.token} }

func prepareGroup(cmd *exec.Cmd) groupPrep {
	becomeSubreaper()
	setpgid(cmd)
	return groupPrep{token: newRunToken()}
}

// pgroup is the program's process group (see group_unix.go) and the run
// token of what it starts.
type pgroup struct {
	pgid  int
	token string
}

func startGroup(cmd *exec.Cmd, p groupPrep) (group, error) {
	g := pgroup{pgid: cmd.Process.Pid, token: p.token}
	running.Store(g.pgid, struct{}{})
	return g, nil
}

// afterWait sweeps what left the group: its own session, its own group,
// orphans (sweep_linux.go).
func (g pgroup) afterWait() {
	running.Delete(g.pgid)
	sweep(g.pgid, g.token)
}

func (g pgroup) release() { running.Delete(g.pgid) }

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
