//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package gitops

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockFileNB takes an exclusive flock on f without waiting. flock belongs
// to the open file, so the kernel drops it when the process dies.
func lockFileNB(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return errLockHeld
	}
	return err
}

// processAlive reports whether a process with this id exists (one of
// another user's answers EPERM: it exists).
func processAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}
