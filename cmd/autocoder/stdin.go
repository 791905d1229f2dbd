package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
)

// promptIfTerminal tells a person who ran `autocoder apply` with no file,
// at a terminal, that autocoder waits for them to paste the response:
// without it the command looks hung.
func promptIfTerminal(r io.Reader, errw io.Writer, isTerminal func(*os.File) bool) {
	f, ok := r.(*os.File)
	if !ok || !isTerminal(f) {
		return
	}
	end := "Ctrl-D"
	if runtime.GOOS == "windows" {
		end = "Ctrl-Z, then Enter"
	}
	fmt.Fprintf(errw, "autocoder: reading from standard input; paste, then %s\n", end)
}

// isTerminal reports whether f is a terminal (a character device that is
// not the null device, which `cmd < /dev/null` and a program started with
// no input also are). Portable: os.Stat reports a console or tty as a
// character device on every system.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return false
	}
	return true
}
