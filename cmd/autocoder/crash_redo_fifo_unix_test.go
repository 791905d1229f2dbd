//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// `autocoder undo 2 --branch main` of a work branch checked out nowhere
// (the ref alone moves, without a journal), killed once the ref moved and
// before the redo stack was written: the steps it took away must still be
// on the redo stack, as they are for the undo of a branch checked out here
// (whose journal carries the stack). A FIFO at the stack's name holds the
// process there: it reads the stack from it (we write it nothing), and
// then blocks in the write of the new one until it is killed.
func TestAnUndoOfABranchCheckedOutNowhereKilledAfterItsRefMovedKeepsTheRedoStack(t *testing.T) {
	t.Parallel()
	g := crashRepoApplied(t)
	base, work, tip := g.base, g.work, g.tip
	g.Git("switch", "-q", base)
	dir := filepath.Join(g.Dir, ".git", "autocoder", "redo")
	must(t, os.MkdirAll(dir, 0o777))
	fifo := filepath.Join(dir, strings.ReplaceAll(work, "/", "%"))
	must(t, syscall.Mkfifo(fifo, 0o666))

	cmd := exec.Command("autocoder", "-C", g.Dir, "undo", "2", "--branch", work)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	must(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Give the read of the stack an end of file: open the FIFO for
	// writing once the process has it open for reading, and close it.
	deadline := time.Now().Add(20 * time.Second)
	for {
		f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			f.Close()
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("undo --branch ended before it read its stack: %v\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("undo --branch never read its redo stack")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Wait for the ref to move (the process then blocks writing the
	// stack), or for a while where it writes the stack first; then kill.
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if g.Git("rev-parse", work) != tip {
			time.Sleep(100 * time.Millisecond)
			break
		}
	}
	select {
	case err := <-exited:
		t.Fatalf("undo --branch was not held by the FIFO: %v\n%s", err, out.String())
	default:
	}
	must(t, cmd.Process.Kill()) // the process this test started, by its id
	<-exited
	must(t, os.Remove(fifo))
	moved := g.Git("rev-parse", work) != tip

	if got := redoAll(t, g.Repo, "killed undo --branch", work, "--branch", work); got != tip {
		t.Fatalf("killed after its ref moved (%v), undo --branch lost the steps it took away: redo ends at %s, not at the tip %s", moved, strings.TrimSpace(got), strings.TrimSpace(tip))
	}
	g.Fsck()
}
