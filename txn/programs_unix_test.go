//go:build unix

package txn_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// A program that leaves a named pipe where a tracked file was does not
// hang autocoder: what the programs changed is found without reading the
// pipe (nobody writes to it: the read would wait forever).
func TestProgramLeavingAPipeDoesNotHang(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n", "gen.txt": "old\n"})
	pipe := filepath.Join(g.Dir, "gen.txt")
	e := open(t, g.Dir, txn.Options{Programs: fakePrograms{allow: true, run: func(dir string, p step.Program) {
		os.Remove(pipe)
		if err := syscall.Mkfifo(pipe, 0o644); err != nil {
			t.Error(err)
		}
	}}})
	s := mkStep("s", write("b", "b\n"))
	s.Programs = []step.Program{{Name: "gen", Command: "make gen", Shell: true}}
	done := make(chan step.Result, 1)
	go func() { done <- e.Apply(context.Background(), s) }()
	select {
	case r := <-done:
		if r.Status != step.StatusApplied {
			t.Errorf("%s: %s", r.Status, r.Error)
		}
	case <-time.After(10 * time.Second):
		// Let the read end, so that the test binary can.
		if f, err := os.OpenFile(pipe, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("autocoder hung reading the pipe the program left")
	}
	if got := g.Git("show", "--name-only", "--format=%s", "HEAD"); got != "Do s\n\nb\n" {
		t.Errorf("HEAD:\n%s", got)
	}
	g.Fsck()
}
