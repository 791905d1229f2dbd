//go:build unix

package txn_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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

// Issue 18: a program that left a 200 MB file cost about 226 MB, to hash
// it. A file over [apply] max_file_bytes is now told from its size without
// being read, and left out of the program's commit, which says so; the
// other files the program made are committed. The file is sparse (no
// disk); memory is the bytes allocated (runtime.MemStats.TotalAlloc),
// measured with no other test running (no t.Parallel).
func TestProgramLeavingAHugeFileStaysInBudget(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{MaxFileBytes: 1 << 20, Programs: fakePrograms{allow: true, run: func(dir string, p step.Program) {
		os.WriteFile(filepath.Join(dir, "small.txt"), []byte("made\n"), 0o644)
		if err := os.WriteFile(filepath.Join(dir, "huge.bin"), []byte("x"), 0o644); err != nil {
			t.Error(err)
		}
		if err := os.Truncate(filepath.Join(dir, "huge.bin"), 200<<20); err != nil {
			t.Error(err)
		}
	}}})
	s := mkStep("s", write("b", "b\n"))
	s.Programs = []step.Program{{Name: "gen", Command: "make gen", Shell: true}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := e.Apply(context.Background(), s)
	runtime.ReadMemStats(&after)
	if r.Status != step.StatusApplied || r.ProgramCommit == "" {
		t.Fatalf("%s: %s (program commit %q)", r.Status, r.Error, r.ProgramCommit)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("the step allocated %d bytes with a 200 MB file about", alloc)
	}
	if msg := r.Programs[0].Error; !strings.Contains(msg, "over the limit") || !strings.Contains(msg, "huge.bin") {
		t.Errorf("the program's result does not name the file left out: %q", msg)
	}
	if got := g.Git("show", "--name-only", "--format=", "HEAD"); got != "small.txt\n" {
		t.Errorf("the program's commit holds:\n%s", got)
	}
	g.Fsck()
}
