package main

import (
	"errors"
	"io"

	"github.com/autocoder/autocoder/txn"
	"github.com/urfave/cli/v2"

	"github.com/autocoder/autocoder/report"
	"github.com/autocoder/autocoder/step"
)

// usageError is a command line that cannot be run as written.
type usageError struct {
	msg string
	try string // the corrected command, when we can build it
}

func (e *usageError) Error() string { return e.msg }

// Class is usage.
func (e *usageError) Class() step.Class { return step.ClassUsage }

// Hint is the corrected command.
func (e *usageError) Hint() string { return e.try }

// reported is a failure that a command already explained on its own output
// (a failed step is reported with the results, not again): report prints
// nothing for it and exits with its class's code.
type reported struct{ class step.Class }

func (e *reported) Error() string { return "failed: " + e.class.String() }

// Class is the class of the failure already reported.
func (e *reported) Class() step.Class { return e.class }

// conclude prints err for people and models, "what failed: why" and then
// what to do, and returns its exit code.
func conclude(stderr io.Writer, err error) int {
	var done *reported
	if err != nil && !errors.As(err, &done) {
		report.Error(stderr, err.Error(), step.HintOf(err))
	}
	return exitOf(err)
}

// exitOf is the exit code of err: 0 for nil, else its class's.
func exitOf(err error) int {
	if err == nil {
		return 0
	}
	return step.ClassOf(err).ExitCode()
}

// failure is the failure of a run, or nil when every step went through:
// step.Judge decides it, as it does for run, MCP and every report.
func failure(rs []step.Result) error {
	if v := step.Judge(rs, false); v.Failed {
		return &reported{class: v.Class}
	}
	return nil
}

// closeEngine closes e when a command is done with it. Close writes the
// index the engine may still hold, so its failure is never dropped: it is
// the command's error, or, when the command failed already, it is printed
// beside that failure.
func closeEngine(c *cli.Context, e *txn.Engine, err *error) {
	cerr := e.Close()
	if cerr == nil {
		return
	}
	if *err == nil {
		*err = cerr
		return
	}
	report.Error(c.App.ErrWriter, cerr.Error(), step.HintOf(cerr))
}
