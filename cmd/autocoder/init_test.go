package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// maxInitAllocs bounds what each of autocoder's own packages allocates
// when the process starts, before any command runs: every process pays
// for it, whatever the command. A regular expression compiled at init
// (most are used on some paths only: sync.OnceValue compiles them at
// first use) or a table built there costs 40 to 800 allocations; what is
// left is small literals.
const maxInitAllocs = 48

// TestInitIsSmall starts autocoder (this binary, as itself) with
// GODEBUG=inittrace=1 and checks each of our packages' initialization
// against maxInitAllocs. It counts allocations, which the code decides,
// not time, which the machine does.
func TestInitIsSmall(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "--version")
	cmd.Env = append(os.Environ(), "AUTOCODER_TEST_AS_BINARY=1", "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("autocoder --version: %v\n%s", err, out)
	}
	// init github.com/x/y @0.5 ms, 0.012 ms clock, 1064 bytes, 10 allocs
	line := regexp.MustCompile(`(?m)^init (github\.com/autocoder/autocoder/\S*) @.* (\d+) allocs$`)
	seen := 0
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		pkg := m[1]
		// This test binary's own package, and what only tests link.
		if pkg == "github.com/autocoder/autocoder/cmd/autocoder" || strings.Contains(pkg, "gittest") {
			continue
		}
		seen++
		if n, _ := strconv.Atoi(m[2]); n > maxInitAllocs {
			t.Errorf("%s allocates %d times at init (at most %d): make what it builds there lazy (sync.OnceValue)", pkg, n, maxInitAllocs)
		}
	}
	if seen < 10 {
		t.Fatalf("read the initialization of %d of our packages only:\n%s", seen, out)
	}
}
