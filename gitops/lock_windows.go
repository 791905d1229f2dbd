//go:build windows

package gitops

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockFileNB takes an exclusive LockFileEx lock on f without waiting.
// Windows releases it when the handle is closed, also when the process
// dies. The locked byte lies far past the end of the file: Windows locks
// are mandatory, and a lock on the holder note itself would keep another
// process from reading who holds it.
func lockFileNB(f *os.File) error {
	ol := &windows.Overlapped{Offset: 0, OffsetHigh: 0x7fffffff}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errLockHeld
	}
	return err
}

// processAlive reports whether a process with this id is running.
func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_ACCESS_DENIED)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if windows.GetExitCodeProcess(h, &code) != nil {
		return true
	}
	return code == 259 // STILL_ACTIVE
}
