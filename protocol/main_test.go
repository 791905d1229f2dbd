package protocol

import (
	"os"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// TestMain gives the whole test binary one HOME and git identity
// (gittest.Main), so that the golden cases, which make repositories and
// commit, run in parallel without setting the environment per test.
func TestMain(m *testing.M) { os.Exit(gittest.Main(m)) }
