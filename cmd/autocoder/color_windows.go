//go:build windows

package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// vtColor turns on the console's handling of escape sequences (virtual
// terminal processing, Windows 10 and later), and reports whether the
// console takes them: an older console would print them as text.
func vtColor(f *os.File) bool {
	h := windows.Handle(f.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return false
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
