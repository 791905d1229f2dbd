package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// A task on standard input larger than run reads is refused, not cut: the
// model was asked the start of the task as if it were all of it.
func TestRunRefusesATaskTooLarge(t *testing.T) {
	dir := t.TempDir()
	task := strings.Repeat("add a flag. ", maxTaskBytes/10)
	var out, errw bytes.Buffer
	code := run([]string{"autocoder", "-C", dir, "run", "--model", "m", "-"}, strings.NewReader(task), &out, &errw)
	if code != 2 || !strings.Contains(errw.String(), "the task is larger than 1048576 bytes") {
		t.Fatalf("exit %d\n%s", code, errw.String())
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Errorf("the folder changed: %v %v", ents, err)
	}
}
