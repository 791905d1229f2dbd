package main

import (
	"errors"
	"io"

	"github.com/autocoder/autocoder/txn"
	"github.com/urfave/cli/v2"

	"github.com/autocoder/autocoder/protocol/report"
	"github.com/autocoder/autocoder/step"
)

// exitCode is the exit code of a failure's class: the one mapping from
// class to exit code, a contract (DESIGN.md) that scripts and other tools
// rely on.
func exitCode(c step.Class) int {
	switch c {
	case step.ClassUsage, step.ClassNoBlock:
		return 2 // nothing changed
	case step.ClassStepFailed:
		return 1 // the step rolled back; earlier steps kept unless --atomic
	case step.ClassPrecondition:
		return 3
	case step.ClassRefused:
		return 4
	case step.ClassProgramFailed:
		return 5 // every step applied, but a program failed or timed out
	}
	return 1 // internal: a failure too
}

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
	return exitCode(step.ClassOf(err))
}

// failure is the failure of a run, or nil when every step went through: the
// class of its first failed step (a step taken back by --atomic did not fail
// itself; the class is that of the step that did); when every step applied,
// refused if the policy refused a program (it was not run, the step's files
// were), program failed if a program failed or timed out.
//
// Exit 2 promises that nothing changed: a step whose own arguments cannot
// be used (class usage or no_block) after a step that was committed is a
// failed step, exit 1.
func failure(rs []step.Result) error {
	committed := false
	for _, r := range rs {
		if r.Status == step.StatusFailed && r.Reason != step.ReasonRolledBack {
			c := r.Class
			if committed && (c == step.ClassUsage || c == step.ClassNoBlock) {
				c = step.ClassStepFailed
			}
			return &reported{class: c}
		}
		if r.Status == step.StatusApplied {
			committed = true
		}
	}
	if p := step.ProgramTrouble(rs); p != nil {
		if p.Status == step.ProgramRefused {
			return &reported{class: step.ClassRefused}
		}
		return &reported{class: step.ClassProgramFailed}
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
