package main

import (
	"errors"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"io"
	"strings"

	"github.com/autocoder/autocoder/txn"
)

// The exit codes, a contract (DESIGN.md): scripts and other tools rely on them.
const (
	exitOK           = 0
	exitStepFailed   = 1
	exitUsage        = 2 // usage error, or no readable instruction block
	exitPrecondition = 3
	exitRefused      = 4
	exitProgram      = 5 // every step applied, but a program failed or timed out
)

// usageError is a command line that cannot be run as written.
type usageError struct {
	msg string
	try string // the corrected command, when we can build it
}

func (e *usageError) Error() string { return e.msg }

func (e *usageError) Hint() string { return e.try }

// exitError carries an exit code that a command already explained on its
// own output (a failed step is reported with the results, not again).
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// report prints err for people and models and maps it to the exit code, in
// this one place.
func report(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	var ex *exitError
	if errors.As(err, &ex) {
		return ex.code
	}
	code := exitCode(err)
	fmt.Fprintf(stderr, "autocoder: error: %s\n", err)
	if h := txn.Hint(err); h != "" {
		for _, line := range strings.Split(h, "\n") {
			fmt.Fprintf(stderr, "autocoder: hint: %s\n", line)
		}
	}
	return code
}

func exitCode(err error) int {
	var us *usageError
	var nothing *txn.NothingError
	switch {
	case errors.As(err, &us):
		return exitUsage
	case errors.As(err, &nothing):
		return exitStepFailed
	}
	if c := txn.Code(err); c != 0 {
		return c
	}
	return exitStepFailed
}

// resultsCode is the exit code of a run: the code of its first failure;
// when every step applied, 4 if the policy refused a program (it was not
// run, the step's files were) and 5 if a program failed or timed out.
func resultsCode(rs []step.Result) int {
	for _, r := range rs {
		// A step taken back by --atomic did not fail itself; the code is
		// that of the step that did.
		if r.Status == step.StatusFailed && r.Reason != step.ReasonRolledBack {
			if r.Code != 0 {
				return r.Code
			}
			return exitStepFailed
		}
	}
	if p := step.ProgramTrouble(rs); p != nil {
		if p.Status == step.ProgramRefused {
			return exitRefused
		}
		return exitProgram
	}
	return exitOK
}
