//go:build !windows

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// A pipe where the bridge log goes (put there by whoever could write in
// .git) neither holds a request forever nor is taken for the log.
func TestBridgeLogIsNoPipe(t *testing.T) {
	gittest.Isolate(t)
	g := bridgeRepo(t)
	dir := filepath.Join(g.Dir, ".git", "autocoder")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "bridge.jsonl")
	if err := syscall.Mkfifo(log, 0o666); err != nil {
		t.Fatal(err)
	}
	if a := bridgeAsk(t, map[string]any{"type": "apply", "site": "chatgpt.com", "answer": bridgeAnswer}); a.Outcome != "applied" {
		t.Fatalf("apply: %+v", a)
	}
	if fi, err := os.Lstat(log); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("the log: %v %v", fi, err)
	}
}
