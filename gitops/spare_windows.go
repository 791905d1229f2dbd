//go:build windows

package gitops

import (
	"os"
	"syscall"
)

// holdSpares is false: a file this process holds open cannot be renamed on
// Windows (Go opens files without FILE_SHARE_DELETE), so loose objects
// take the spares every file takes, and are made read-only after.
const holdSpares = false

// soleName reports whether name is a regular file and its one name (see
// Spares.take): NTFS has hard links too.
func soleName(name string) bool {
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	var d syscall.ByHandleFileInformation
	return syscall.GetFileInformationByHandle(syscall.Handle(f.Fd()), &d) == nil && d.NumberOfLinks == 1
}
