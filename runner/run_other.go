//go:build !linux

package runner

import (
	"context"
	"fmt"
)

// Run refuses: without waitid(WNOWAIT) and process groups as Linux has them,
// a timeout could not be sure to stop every process a program starts.
func Run(ctx context.Context, s Spec) (Result, error) {
	return Result{}, fmt.Errorf("run %q: %w", s.name(), ErrUnsupported)
}
