//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package gitops

import (
	"fmt"
	"os"
	"runtime"
)

// lockFileNB has no implementation on this system: autocoder refuses to
// work rather than run without its one-process-at-a-time lock.
func lockFileNB(f *os.File) error {
	return fmt.Errorf("no file lock on %s", runtime.GOOS)
}

// processAlive cannot tell here: a gc.pid younger than 12 hours counts.
func processAlive(pid int) bool { return true }
