//go:build windows

package txn_test

import (
	"time"

	"golang.org/x/sys/windows"
)

// cpuSelf and cpuChildren are whose CPU time cpuTime reports.
const (
	cpuSelf = iota
	cpuChildren
)

// settle has nothing to do on Windows: NTFS has no data=ordered journal
// that makes one fsync wait for every dirty file (see the unix form).
func settle() {}

// cpuTime is the user plus kernel time of this process (GetProcessTimes).
// Windows keeps no total for children that have exited, so the git loop's
// CPU time reads 0 here; its wall time is still measured.
func cpuTime(who int) time.Duration {
	if who != cpuSelf {
		return 0
	}
	var creation, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user); err != nil {
		panic(err)
	}
	ft := func(f windows.Filetime) time.Duration {
		return time.Duration(int64(f.HighDateTime)<<32|int64(f.LowDateTime)) * 100
	}
	return ft(kernel) + ft(user)
}
