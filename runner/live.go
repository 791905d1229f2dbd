//go:build linux || darwin || windows

package runner

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Live is a program that keeps running after the call that started it (a
// server, a watcher: seed 001's programs that report while they run). It
// runs through Run, so it has Run's process group and sweep; Take hands out
// what it wrote since the last Take, and Stop ends it with its whole tree.
type Live struct {
	start time.Time
	stop  context.CancelFunc
	done  chan struct{}
	res   Result
	err   error

	mu        sync.Mutex
	max       int
	out, err2 *capture
}

// Start starts s and returns at once. The program runs until it ends, its
// Timeout passes, ctx ends or Stop is called; s.OnOutput is Live's own.
// A program that cannot start is a *StartError, as from Run.
func Start(ctx context.Context, s Spec) (*Live, error) {
	max := s.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	l := &Live{start: time.Now(), done: make(chan struct{}), max: max,
		out: &capture{max: max}, err2: &capture{max: max}}
	s.OnOutput = func(isErr bool, p []byte) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if isErr {
			l.err2.add(p)
		} else {
			l.out.add(p)
		}
	}
	ctx, l.stop = context.WithCancel(ctx)
	started := make(chan error, 1)
	go func() {
		defer close(l.done)
		defer l.stop()
		// Run reports a program that did not start before it waits; the
		// first error of a started one comes after its end.
		l.res, l.err = Run(ctx, s)
		started <- l.err
	}()
	// A start failure returns from Run at once; give it that moment, so
	// the caller hears of a missing program now rather than at Stop.
	select {
	case err := <-started:
		var se *StartError
		if errors.As(err, &se) {
			return nil, err
		}
	case <-time.After(50 * time.Millisecond):
	}
	return l, nil
}

// Take returns what the program wrote since the last Take, each stream
// capped as Spec.MaxOutput says (its start and its end kept), and how long
// it has run.
func (l *Live) Take() (stdout, stderr []byte, ran time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	stdout, stderr = l.out.bytes(), l.err2.bytes()
	l.out, l.err2 = &capture{max: l.max}, &capture{max: l.max}
	return stdout, stderr, time.Since(l.start)
}

// Exited reports whether the program has ended (on its own or stopped), and
// then its result: the Result and error of Run.
func (l *Live) Exited() (bool, Result, error) {
	select {
	case <-l.done:
		return true, l.res, l.err
	default:
		return false, Result{}, nil
	}
}

// Stop ends the program with everything it started (as Run does when its
// context ends) and waits for it; it reports whether the program was still
// running, and its result.
func (l *Live) Stop() (wasRunning bool, res Result, err error) {
	select {
	case <-l.done:
	default:
		wasRunning = true
	}
	l.stop()
	<-l.done
	return wasRunning, l.res, l.err
}
