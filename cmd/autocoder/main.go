// Command autocoder applies a language model's instruction blocks to a git
// repository, one commit per step on a work branch. See README.md.
//
// This package is thin: it parses arguments, wires the packages together
// and maps a failure's class to its exit code in one switch (exit.go).
// What a command prints, as text or --format json, is report's.
// Each subcommand has its own file.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/autocoder/autocoder/bridge"
	"github.com/autocoder/autocoder/termsafe"
)

func main() {
	if endsByItself(os.Args) && os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" && roomForHeap("/") {
		// A one-shot command ends in milliseconds at 100k files, and a
		// collection started in them is work thrown away: a sixth of a
		// one-step apply's CPU (perf). The collector runs only if the
		// heap nears the limit, which a long command does reach (an
		// apply of 1,400 steps: 1 GiB, where the collector kept 160
		// MB): a process with less memory than that keeps it on.
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(oneShotMemoryLimit)
	}
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// oneShotMemoryLimit is the heap a one-shot command grows to before the
// collector runs (see main).
const oneShotMemoryLimit = 1 << 30

// endsByItself reports whether args (os.Args) name a command that ends by
// itself: every command but the servers and the model loop (mcp, bridge,
// run), which run for hours and collect as usual. Options before the
// command (-C DIR) are skipped; anything unclear is not one-shot.
func endsByItself(args []string) bool {
	if len(args) > 1 && bridge.StartedByBrowser(args[1:]) {
		return false
	}
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-C" || a == "--C":
			i++
		case strings.HasPrefix(a, "-C=") || strings.HasPrefix(a, "--C="):
		case strings.HasPrefix(a, "-"):
			return false
		default:
			switch a {
			case "mcp", "bridge", "run":
				return false
			}
			return true
		}
	}
	return false
}

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
	// (signal.NotifyContext's cause names the signal only in its text; the
	// exit code needs the signal itself.)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case s := <-sigs:
			cancel(&signalled{s})
		case <-done:
		}
	}()
	if len(args) > 1 && bridge.StartedByBrowser(args[1:]) {
		// The browser runs the binary the host manifest names with the
		// caller's origin, and no command: that is autocoder bridge.
		args = append([]string{args[0], "bridge"}, args[1:]...)
	}
	err := app.RunContext(ctx, interspersed(app, args)) // options after FILE too
	code := conclude(stderr, err)
	var sig *signalled
	if errors.As(context.Cause(ctx), &sig) {
		// What was committed before is kept and was listed above; the step
		// in flight was finished (past its commit point) or rolled back.
		fmt.Fprintf(stderr, "autocoder: stopped by %s: the steps reported applied are committed; the step in flight was finished or rolled back, and its programs stopped\n", sig.s)
		if n, ok := sig.s.(syscall.Signal); ok {
			return 128 + int(n) // the shell's convention: 130 for Ctrl-C, 143 for SIGTERM
		}
	}
	return code
}

// signalled is the cause of the context of a command stopped by a signal.
type signalled struct{ s os.Signal }

func (e *signalled) Error() string { return e.s.String() + " signal received" }

// Is makes the cause match context.Canceled, as the context's own error does.
func (e *signalled) Is(target error) bool { return target == context.Canceled }
