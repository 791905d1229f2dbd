package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestPromptIfTerminal(t *testing.T) {
	yes := func(*os.File) bool { return true }
	var b bytes.Buffer
	promptIfTerminal(os.Stdin, &b, yes)
	if !strings.Contains(b.String(), "reading from standard input; paste, then Ctrl-") {
		t.Errorf("at a terminal: %q", b.String())
	}
	b.Reset()
	promptIfTerminal(strings.NewReader("x"), &b, yes) // not a file: a test's or a pipe's reader
	if b.Len() != 0 {
		t.Errorf("not a file: %q", b.String())
	}
	// A pipe, a regular file and the null device are not terminals.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	reg, err := os.CreateTemp(t.TempDir(), "r")
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	for _, f := range []*os.File{pr, null, reg} {
		if isTerminal(f) {
			t.Errorf("%s is not a terminal", f.Name())
		}
	}
}
