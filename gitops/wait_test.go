package gitops

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// WaitWhileHeld, the one lock wait of gitops' lock files and the engine's
// process lock: it tries again while the lock is held, and only then.
func TestWaitWhileHeld(t *testing.T) {
	t.Parallel()
	isHeld := func(err error) bool { return errors.Is(err, os.ErrExist) }
	held := &os.PathError{Op: "open", Path: "x.lock", Err: os.ErrExist}

	// Held twice, then taken: three tries, two calls of onHeld, no error.
	tries, calls := 0, 0
	err, gaveUp := WaitWhileHeld(context.Background(), time.Hour, time.Millisecond, func() error {
		if tries++; tries < 3 {
			return held
		}
		return nil
	}, isHeld, func(time.Duration) { calls++ })
	if err != nil || gaveUp || tries != 3 || calls != 2 {
		t.Errorf("taken on the third try: err %v, gaveUp %v, %d tries, %d calls of onHeld", err, gaveUp, tries, calls)
	}

	// Another error ends the wait at once, and is returned.
	other := errors.New("permission denied")
	tries = 0
	err, gaveUp = WaitWhileHeld(context.Background(), time.Hour, time.Millisecond, func() error { tries++; return other },
		isHeld, func(time.Duration) { t.Error("onHeld called for an error that is not a held lock") })
	if err != other || gaveUp || tries != 1 {
		t.Errorf("another error: err %v, gaveUp %v, %d tries", err, gaveUp, tries)
	}

	// The wait runs out with the lock still held.
	err, gaveUp = WaitWhileHeld(context.Background(), time.Millisecond, time.Millisecond, func() error { return held },
		isHeld, func(time.Duration) {})
	if err != held || !gaveUp {
		t.Errorf("the wait ran out: err %v, gaveUp %v", err, gaveUp)
	}

	// ctx ends the wait (an hour long) when it is cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls = 0
	err, gaveUp = WaitWhileHeld(ctx, time.Hour, time.Hour, func() error { return held }, isHeld, func(time.Duration) {
		if calls++; calls == 2 {
			cancel()
		}
	})
	if err != held || !gaveUp || calls != 2 {
		t.Errorf("cancelled: err %v, gaveUp %v, %d calls of onHeld", err, gaveUp, calls)
	}
}
