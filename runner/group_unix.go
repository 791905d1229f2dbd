//go:build linux || darwin

package runner

import (
	"os/exec"
	"syscall"
)

// shellPath is the shell that runs Spec.Shell commands.
func shellPath() (string, error) { return "/bin/sh", nil }

// setpgid makes the program the leader of a new process group, which
// everything it starts joins unless it leaves on purpose (setsid).
func setpgid(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// pgroup (group_linux.go, group_darwin.go) is the process group whose id
// is the program's pid. The id stays reserved while the program is a
// zombie, so the group is signalled only between its exit and its reaping
// (waitExited does not reap): never after, when the id could name someone
// else's group.

func (g pgroup) waitExited() { waitExited(g.pgid) }
func (g pgroup) stop()       { _ = syscall.Kill(-g.pgid, syscall.SIGTERM) }
func (g pgroup) kill()       { _ = syscall.Kill(-g.pgid, syscall.SIGKILL) }
