//go:build unix

package matcher

import (
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system time so far: a busy machine
// stretches wall time, not this.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// nearMissCost is the CPU time of one failed replace at n lines: the least,
// over runs, of reps replaces in a row divided by reps (so that a small
// input still takes well over the clock's resolution).
func nearMissCost(t testing.TB, n, reps, runs int) time.Duration {
	file, old := nearMissRepetitive(n)
	best := time.Duration(1 << 62)
	for range runs {
		runtime.GC()
		start := cpuTime()
		for range reps {
			_, _, err := Replace(file, Edit{Old: old, New: "x"})
			if nm, ok := err.(*NoMatchError); !ok || nm.Nearest == nil {
				t.Fatalf("%d lines: err = %v, want a near miss with its nearest region", n, err)
			}
		}
		best = min(best, (cpuTime()-start)/time.Duration(reps))
	}
	return best
}

// The near-miss search is linear: 10× the lines cost at most 15× the CPU
// time (it was about 100×: an alignment of every line with every line).
func TestNearMissSearchIsLinear(t *testing.T) {
	small, large := nearMissCost(t, 40, 50, 5), nearMissCost(t, 400, 5, 5)
	ratio := float64(large) / float64(small)
	t.Logf("near miss, 40 lines: %v, 400 lines: %v, ratio %.1f", small, large, ratio)
	// Every line of the region differs: the hint names the lines rather
	// than a diff of all of them.
	file, old := nearMissRepetitive(400)
	if _, _, err := Replace(file, Edit{Old: old, New: "x"}); err == nil || !strings.Contains(err.(*NoMatchError).Hint(), "400 of its lines differ") {
		t.Errorf("400 changed lines: hint %v", err)
	}
	if ratio > 15 {
		t.Errorf("10× the lines cost %.0f× the CPU time (%v -> %v); linear is 10×, quadratic 100×", ratio, small, large)
	}
}
