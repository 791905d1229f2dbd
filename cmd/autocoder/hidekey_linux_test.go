package main

import (
	"context"
	"testing"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/step"
	"golang.org/x/sys/unix"
)

// A program reads the key hiddenEnv empties for it in its parent's
// environment instead (tr '\0' '\n' < /proc/$PPID/environ) unless
// autocoder is not dumpable: its /proc files are then root's, and refused
// to the user's programs (root itself, which may read any process's,
// cannot be kept out).
func TestProgramsSealTheEnviron(t *testing.T) {
	cfg := config.Default()
	r := programs{cfg: cfg, allowAll: true}.Run(context.Background(), t.TempDir(), step.Program{Name: "p", Command: "true", Shell: true})
	if r.Status != "success" {
		t.Fatalf("program: %+v", r)
	}
	if d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || d != 0 {
		t.Errorf("after a program ran: dumpable %d, %v; want 0: a program of the same user reads the API key in /proc/PPID/environ", d, err)
	}
}
