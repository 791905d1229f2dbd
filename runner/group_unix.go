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

// pgroup (group_linux.go, group_darwin.go) is the process group whose
// leader's pid is its id. The id stays reserved while the leader is a
// zombie, so the group (or on Linux the reaper) is signalled only between
// its exit and its reaping (waitExited does not reap): never after, when
// the id could name someone else's.
