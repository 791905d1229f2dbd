package gitops_test

import (
	"os"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// TestMain gives the whole test binary one HOME with a git identity
// (gittest.Main), so that the tests need no t.Setenv and may run in
// parallel.
func TestMain(m *testing.M) { os.Exit(gittest.Main(m)) }
