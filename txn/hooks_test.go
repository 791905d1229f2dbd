package txn

import (
	"sync"
	"testing"
)

// OnFirstBusy runs f, once, the first time Open or Acquire finds another
// autocoder holding the repository during the test t: the tests release
// or cancel there, when the wait has provably begun. A test that calls it
// cannot be parallel (the hook is the package's).
func OnFirstBusy(t testing.TB, f func()) {
	var once sync.Once
	old := onBusy
	onBusy = func() { once.Do(f) }
	t.Cleanup(func() { onBusy = old })
}

// StopFilling stops the making of spare files that Release began, and
// waits for it to end: a test that changes autocoder's folder between
// two calls does it while nothing else writes there.
func StopFilling(e *Engine) { e.spares.Stop() }

// BeforeReplace runs f with each temporary file about to be renamed over
// a work tree file, during the test t (which cannot be parallel).
func BeforeReplace(t testing.TB, f func(tmp string)) {
	old := beforeReplace
	beforeReplace = f
	t.Cleanup(func() { beforeReplace = old })
}
