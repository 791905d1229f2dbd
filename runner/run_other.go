//go:build !linux && !darwin && !windows

package runner

import (
	"context"
	"fmt"
	"time"
)

// Run refuses: without a way to wait for a program's exit without reaping
// it and to stop its whole process tree (group_unix.go, group_windows.go),
// a timeout could not be sure to stop every process a program starts.
func Run(ctx context.Context, s Spec) (Result, error) {
	return Result{}, fmt.Errorf("run %q: %w", s.name(), ErrUnsupported)
}

// Live is a program that keeps running; see live.go. Here none can start.
type Live struct{}

// Start refuses, as Run does.
func Start(ctx context.Context, s Spec) (*Live, error) {
	return nil, fmt.Errorf("start %q: %w", s.name(), ErrUnsupported)
}

// Take is never reached: Start never returns a Live here.
func (l *Live) Take() (stdout, stderr []byte, ran time.Duration) { return nil, nil, 0 }

// Exited is never reached: Start never returns a Live here.
func (l *Live) Exited() (bool, Result, error) { return true, Result{}, ErrUnsupported }

// Stop is never reached: Start never returns a Live here.
func (l *Live) Stop() (bool, Result, error) { return false, Result{}, ErrUnsupported }
