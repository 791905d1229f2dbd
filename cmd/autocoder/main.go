// Command autocoder applies a language model's instruction blocks to a git
// repository, one commit per step on a work branch. See README.md.
//
// This package is thin: it parses arguments, wires the packages together
// and maps errors to exit codes (exit.go). Each subcommand has its own file.
package main

import (
	"io"
	"os"
)

func main() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) }

// run is the whole program, callable in-process by tests.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr)
	err := app.Run(args)
	return report(stderr, err)
}
