// Command autocoder applies a language model's instruction blocks to a git
// repository, one commit per step on a work branch. See README.md.
//
// This package is thin: it parses arguments, wires the packages together
// and maps errors to exit codes (exit.go). Each subcommand has its own file.
package main

import (
	"context"
	"github.com/autocoder/autocoder/termsafe"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) }

// run is the whole program, callable in-process by tests.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Standard error holds messages for people only, and they quote the
	// response (paths, reasons, errors): its escape sequences are shown,
	// never obeyed.
	stderr = termsafe.Writer{W: stderr}
	app := newApp(stdin, stdout, stderr)
	// Every command's context ends on Ctrl-C or SIGTERM: a step not yet at
	// its commit point is rolled back, and a running program is stopped
	// with everything it started (txn.Engine.Apply, runner.Run).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := app.RunContext(ctx, args)
	return report(stderr, err)
}
