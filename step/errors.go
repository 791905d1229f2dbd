package step

import (
	"errors"
	"slices"
	"strings"
)

// Class is what kind of failure an error is. Every error a caller acts on
// has one, through the Classed interface, so that no caller reads message
// text: cmd maps a Class to an exit code in one function, and each dialect's
// feedback maps it to its own codes.
type Class int

// The classes. The zero value is ClassInternal: an error nobody classified
// is a fault of ours or of the system, never blamed on the response.
const (
	ClassInternal      Class = iota // a bug, or an unexpected failure of the system
	ClassUsage                      // the command line, or an op's arguments, cannot be used as written
	ClassNoBlock                    // the text holds no readable instruction block
	ClassStepFailed                 // the step cannot be done on this repository as written (nothing of it remains)
	ClassPrecondition               // a check the step asked for did not hold (check_*, expectedSha256)
	ClassRefused                    // the safety policy refused it (paths, dirty files, locks, programs, git's state)
	ClassProgramFailed              // every step applied, but a program failed or timed out
)

var classNames = [...]string{
	ClassInternal:      "internal",
	ClassUsage:         "usage",
	ClassNoBlock:       "no_block",
	ClassStepFailed:    "step_failed",
	ClassPrecondition:  "precondition",
	ClassRefused:       "refused",
	ClassProgramFailed: "program_failed",
}

// String is the class's name in JSON output and feedback.
func (c Class) String() string {
	if c >= 0 && int(c) < len(classNames) {
		return classNames[c]
	}
	return "internal"
}

// MarshalText writes the class as its name.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Classed is an error that knows its class.
type Classed interface {
	error
	Class() Class
}

// Hinted is an error that says what to do about it. A hint is for people and
// for models alike: the corrected command or text where it can be built.
type Hinted interface {
	error
	Hint() string
}

// ClassOf is the class of err: that of the outermost error in its chain
// that has one, ClassInternal when none has. A nil error has no class; it
// returns ClassInternal too, so callers test err != nil first.
func ClassOf(err error) Class {
	var c Classed
	if errors.As(err, &c) {
		return c.Class()
	}
	return ClassInternal
}

// HintOf is the hint of the outermost error in err's chain that has a
// non-empty one, or "". Joined errors (errors.Join) give every distinct
// hint of theirs, separated by "; ".
//
// It is the one place that decides whether an error has a hint: a hint is
// trimmed of surrounding white space, and one that is only white space is
// none, so no writer (the text report, JSON, each dialect's feedback, MCP
// tool errors) ever renders an empty "hint:".
func HintOf(err error) string {
	for err != nil {
		if h, ok := err.(Hinted); ok {
			if s := strings.TrimSpace(h.Hint()); s != "" {
				return s
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			// Several problems (errors.Join): each one's advice, once.
			var hints []string
			for _, e := range u.Unwrap() {
				if s := HintOf(e); s != "" && !slices.Contains(hints, s) {
					hints = append(hints, s)
				}
			}
			return strings.Join(hints, "; ")
		default:
			return ""
		}
	}
	return ""
}

// Error is a classed error with a hint, for the places that need no type of
// their own: Errorf-like messages that still carry their class and advice.
type Error struct {
	C   Class
	Msg string
	Fix string // the hint
	Err error  // the cause, if any
}

func (e *Error) Error() string {
	if e.Err != nil && e.Msg == "" {
		return e.Err.Error()
	}
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

// Class is the error's class.
func (e *Error) Class() Class { return e.C }

// Hint says what to do.
func (e *Error) Hint() string { return e.Fix }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }
