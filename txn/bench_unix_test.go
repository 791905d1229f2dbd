//go:build unix

package txn_test

import (
	"syscall"
	"time"
)

// cpuSelf and cpuChildren are whose CPU time cpuTime reports.
const cpuSelf, cpuChildren = syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN

// settle writes back all dirty data (sync(2)) with the timer stopped, so
// that no step pays for the disk writes of what ran before it: the copies
// made for the round, the other side's last step, other programs. ext4 in
// data=ordered mode makes the engine's one fsync (its journal) wait for
// every dirty file of the file system, and git runs no fsync at all, so
// without this the engine is charged for the git loop's writes. A run
// with the sides in two blocks of 100 and no sync measured the same
// medians (docs-bench.md).
func settle() { syscall.Sync() }

// cpuTime is the user plus system time getrusage(2) reports for who.
func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		panic(err) // only EINVAL for a bad who, a bug here
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
