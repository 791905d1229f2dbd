//go:build unix

package protocol_test

// Linear time on any input (issue 8, item 6): every block finder and the
// matcher's tolerant tier are fed adversarial shapes at 1×, 10× and 100×.
// BenchmarkAdversarial reports the ratios; TestAdversarialShapesAreLinear
// guards against a regression by comparing CPU time (not wall time, which a
// busy machine stretches) at 1× and 10× in one run, with a generous bound:
// linear is 10×, quadratic 100×.

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autocoder/autocoder/matcher"
	"github.com/autocoder/autocoder/protocol"
)

// shape makes an input of n units; run feeds it to the code under test.
type shape struct {
	name string
	unit int // units at 1×
	make func(n int) []byte
	run  func(in []byte)
}

func parse(in []byte) { protocol.Parse(in) }

// nearMiss is a file of n small functions and an edit whose old text is one
// line off from one of them: the matcher tries every tier, tolerant ones
// included, and reports the nearest region.
func nearMiss(in []byte) {
	matcher.ReplaceAll(in, []matcher.Edit{{Old: "func f7(x int) int {\n\treturn x + 8\n}\n", New: "x"}})
}

var shapes = []shape{
	{"stray ``` lines", 10000, func(n int) []byte { return bytes.Repeat([]byte("```\n"), n) }, parse},
	{"stray ``` lines in prose", 1000, func(n int) []byte { return bytes.Repeat([]byte("text\n```go\nx\n"), n) }, parse},
	{"repeated #####--", 2000, func(n int) []byte { return bytes.Repeat([]byte("#####--\n"), n) }, parse},
	{"#####-- with /* and a string", 1000, func(n int) []byte { return bytes.Repeat([]byte("#####--\n/* \"x\n"), n) }, parse},
	{"repeated ```mcp-request", 2000, func(n int) []byte { return bytes.Repeat([]byte("```mcp-request\n"), n) }, parse},
	{"bare mcp-request lines", 2000, func(n int) []byte { return bytes.Repeat([]byte("mcp-request\n"), n) }, parse},
	{"repeated ~~~~~act", 2000, func(n int) []byte { return bytes.Repeat([]byte("~~~~~act\n"), n) }, parse},
	// The edit formats (FORMATS.md): apply_patch envelopes and JSON tool
	// calls, unified diffs.
	{"repeated *** Begin Patch", 2000, func(n int) []byte { return bytes.Repeat([]byte("*** Begin Patch\n"), n) }, parse},
	{"*** Begin Patch never ended", 2000, func(n int) []byte {
		return append([]byte("*** Begin Patch\n*** Update File: a\n@@\n"), bytes.Repeat([]byte(" x\n"), n)...)
	}, parse},
	{"apply_patch_call in broken JSON", 1000, func(n int) []byte {
		return bytes.Repeat([]byte("{\"type\": \"apply_patch_call\", \"x\": [\n"), n)
	}, parse},
	{"Begin Patch in broken JSON strings", 1000, func(n int) []byte {
		return bytes.Repeat([]byte("{\"input\": \"*** Begin Patch\\n\n"), n)
	}, parse},
	{"repeated ```diff headers", 1000, func(n int) []byte { return bytes.Repeat([]byte("```diff\n--- a/x\n+++ b/x\n```\n"), n) }, parse},
	{"bare --- +++ pairs", 2000, func(n int) []byte { return bytes.Repeat([]byte("--- a/x\n+++ b/x\n"), n) }, parse},
	{"a diff of bare @@ lines", 2000, func(n int) []byte {
		return append([]byte("--- a/x\n+++ b/x\n"), bytes.Repeat([]byte("@@ -1,9 +1,9 @@\n-a\n"), n)...)
	}, parse},
	{"near-miss edit", 1000, func(n int) []byte {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "func f%d(x int) int {\n\treturn x + %d\n}\n", i, i)
		}
		return []byte(b.String())
	}, nearMiss},
	{"near-miss edit in alike lines", 500, func(n int) []byte { return []byte(strings.Repeat("\tx = 1\n", n)) }, func(in []byte) {
		// Half the file, then a line it does not have: every tier checks
		// every place the first lines agree.
		old := bytes.Repeat([]byte("\tx = 1\n"), bytes.Count(in, []byte("\n"))/2)
		matcher.ReplaceAll(in, []matcher.Edit{{Old: string(append(old, "\ty = 2\n"...)), New: "x"}})
	}},
}

// cpu is the process's user and system time so far.
func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cost is the least CPU time of a few runs of s at n units. The garbage
// collector is off while s runs: its cost is the runtime's, not the code's,
// and it is not linear in the input. Its background workers, counted in the
// process's CPU time, mark the whole live heap (the input and what the
// reader built) once per collection, and on two cores they spin waiting
// for the running goroutine to stop. With it on, linear readers measured
// 20–46× for 10× the input on CI; with it off, 7–18×.
func cost(s shape, n, runs int) time.Duration {
	in := s.make(n)
	best := time.Duration(1 << 62)
	for i := 0; i < runs; i++ {
		runtime.GC() // the garbage of the run before is not this one's cost
		gc := debug.SetGCPercent(-1)
		start := cpu()
		s.run(in)
		best = min(best, cpu()-start)
		debug.SetGCPercent(gc)
	}
	return best
}

func TestAdversarialShapesAreLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("measures CPU time over a few seconds")
	}
	for _, s := range shapes {
		// 4× the unit at the small end, so that its CPU time is well above
		// the clock's resolution.
		small, large := cost(s, 4*s.unit, 5), cost(s, 40*s.unit, 3)
		ratio := float64(large) / float64(max(small, time.Millisecond))
		t.Logf("%-30s 1×: %8v  10×: %8v  ratio %.1f", s.name, small, large, ratio)
		if ratio > 35 {
			t.Errorf("%s: 10× the input costs %.0f× the CPU time (%v -> %v); linear is 10×, quadratic 100×", s.name, ratio, small, large)
		}
	}
}

// BenchmarkAdversarial reports each shape's CPU time at 1×, 10× and 100×
// and the ratio per 10× step (issue 8 asks ≤ 15×). go test -run '^$'
// -bench Adversarial -benchtime 1x ./protocol/
func BenchmarkAdversarial(b *testing.B) {
	for _, s := range shapes {
		b.Run(strings.ReplaceAll(s.name, " ", "_"), func(b *testing.B) {
			var c [3]time.Duration
			for i, n := range []int{s.unit, 10 * s.unit, 100 * s.unit} {
				c[i] = cost(s, n, 1)
			}
			b.ReportMetric(float64(c[0])/1e6, "ms@1x")
			b.ReportMetric(float64(c[1])/1e6, "ms@10x")
			b.ReportMetric(float64(c[2])/1e6, "ms@100x")
			b.ReportMetric(float64(c[1])/float64(max(c[0], time.Millisecond)), "ratio10x/1x")
			b.ReportMetric(float64(c[2])/float64(max(c[1], time.Millisecond)), "ratio100x/10x")
		})
	}
}
