//go:build unix

package txn_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// A session's calls that create files ask git which paths it ignores
// through one git check-ignore kept for the session, not one per call (a
// process start is 2-3 ms, most of such a call); Close stops it. git is
// replaced after the first call by one that records each run, with its
// pid, and runs the real git.
func TestSessionAsksIgnoreRulesOfOneGit(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", ".gitignore": "*.log\n"})
	e := open(t, g.Dir, txn.Options{SplitIndex: true})
	ctx := context.Background()
	mustApply(t, e, mkStep("s1", write("a.txt", "one\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}

	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	ran := filepath.Join(bin, "ran")
	os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho \"$$ git $*\" >> '"+ran+"'\nexec '"+real+"' \"$@\"\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	calls := []struct {
		path    string
		refused bool
	}{{"b.txt", false}, {"d/c.txt", false}, {"x.log", true}, {"d/e/f.txt", false}, {"d/y.log", true}}
	for i, c := range calls {
		if err := e.Acquire(ctx, time.Second); err != nil {
			t.Fatal(err)
		}
		r := e.Apply(ctx, mkStep(fmt.Sprint("call", i), write(c.path, "new\n")))
		if err := e.Release(); err != nil {
			t.Fatal(err)
		}
		if got := r.Status == step.StatusFailed && r.Class == step.ClassRefused; got != c.refused || (!got && r.Status != step.StatusApplied) {
			t.Fatalf("call %d (%s): %s %s", i, c.path, r.Status, r.Error)
		}
	}
	b, _ := os.ReadFile(ran)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "git check-ignore") {
		t.Fatalf("git runs during %d calls creating files, want one check-ignore:\n%s", len(calls), b)
	}
	pid, _ := strconv.Atoi(strings.Fields(lines[0])[0])
	if !alive(pid) {
		t.Fatalf("git check-ignore (pid %d) is not running during the session", pid)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("git check-ignore (pid %d) still runs after Close", pid)
	}
	if got := g.Git("status", "--porcelain"); got != "" {
		t.Errorf("status:\n%s", got)
	}
	g.Fsck()
}

// alive reports whether process pid exists (a zombie, exited but not
// waited for, counts: a Close that does not wait leaks it).
func alive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == nil
}
