//go:build !unix

package protocol

import "time"

// cpuTime is not measured here: the benchmarks print wall-clock time only.
func cpuTime() (time.Duration, bool) { return 0, false }
