//go:build unix

package mcp

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUnclosedFencesLinear: every opener looked for its closing line by
// scanning to the end of the text, so a response of many fences that never
// close took quadratic time (20,000 unclosed requests: about 10 s of CPU
// before the closers index, 0.1 s after). The bound is CPU time, generous,
// so that a busy machine does not fail it.
func TestUnclosedFencesLinear(t *testing.T) {
	for _, unit := range []string{
		"```mcp-request\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n",
		"```python\nprint(1)\n",
		"mcp-request\ncopy\n\n",
	} {
		text := []byte(strings.Repeat(unit, 20000))
		var r0, r1 syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
		Parse(text)
		syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
		cpu := time.Duration(r1.Utime.Nano() - r0.Utime.Nano() + r1.Stime.Nano() - r0.Stime.Nano())
		if cpu > 2*time.Second {
			t.Errorf("%q × 20,000 (%d KB) took %v of CPU: the scan is not linear", unit[:14], len(text)>>10, cpu)
		}
	}
}
