//go:build !linux

package gittest

import "testing"

// DelayedAllocation is not known here (see delayed_linux.go).
func DelayedAllocation(testing.TB, string) (delayed, known bool) { return false, false }

// DelayingAllocation skips the test here (see delayed_linux.go).
func DelayingAllocation(t testing.TB, _ string) func() {
	t.Helper()
	t.Skip("delayed allocation is ext4's, on linux")
	return nil
}
