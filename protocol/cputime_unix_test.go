//go:build unix

package protocol

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used (user and system, every
// thread): on a machine whose cores other work shares, a benchmark's CPU
// time per operation moves far less than its wall-clock time.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
