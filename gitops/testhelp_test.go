package gitops

import (
	"os"
	"testing"
	"time"
)

// Functions only the tests use: the binary does not need them (deadcode),
// so they live beside the tests that do.

// Filled waits for a running Fill to end: the pool holds what Fill was
// asked for, or Fill gave up. The tests await it instead of polling the
// folder with sleeps.
func (s *Spares) Filled() {
	if s.done != nil {
		<-s.done
	}
}

// SetFillDelay makes Fill wait d before it starts, until the test t ends.
// The delay is the package's: a test that sets it cannot be parallel.
func SetFillDelay(t testing.TB, d time.Duration) {
	old := fillDelay
	fillDelay = d
	t.Cleanup(func() { fillDelay = old })
}

// HoldSpares tells the tests whether loose objects take held read-only
// spares here (see holdSpares).
const HoldSpares = holdSpares

// DropHeld closes and removes the held read-only spares, so that the next
// objects take the spares every file takes.
func (s *Spares) DropHeld() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.objs {
		o.f.Close()
		os.Remove(o.name)
	}
	s.objs = nil
}

// openIn opens the repository at dir for the test, closed when it ends.
func openIn(t testing.TB, dir string) *Repo {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
