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

// oneLink reports whether name counts one link (see soleName): NTFS has
// hard links too, counted on an open handle.
func oneLink(name string, _ os.FileInfo) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	var d syscall.ByHandleFileInformation
	return syscall.GetFileInformationByHandle(syscall.Handle(f.Fd()), &d) == nil && d.NumberOfLinks == 1
}
