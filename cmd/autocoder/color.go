package main

import (
	"io"
	"os"

	"github.com/autocoder/autocoder/termsafe"
)

// colorful reports whether w may carry colour: it is a terminal (under the
// escaping of termsafe.Writer), NO_COLOR is not set to anything
// (no-color.org: any non-empty value), TERM is not "dumb", and on Windows
// the console takes escape sequences (color_windows.go). A pipe or a file
// never gets an escape sequence. What is coloured is
// report's (color.go).
func colorful(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := termsafe.Raw(w).(*os.File)
	return ok && isTerminal(f) && vtColor(f)
}
