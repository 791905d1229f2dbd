//go:build !linux && !darwin && !windows

package runner

import (
	"context"
	"fmt"
)

// Run refuses: without a way to wait for a program's exit without reaping
// it and to stop its whole process tree (group_unix.go, group_windows.go),
// a timeout could not be sure to stop every process a program starts.
func Run(ctx context.Context, s Spec) (Result, error) {
	return Result{}, fmt.Errorf("run %q: %w", s.name(), ErrUnsupported)
}
