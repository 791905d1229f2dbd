package step

import "slices"

// Outcome is what became of one operation or step, in the words every
// surface uses (the text report, the JSON, each dialect's feedback, run's
// summary, MCP results): decided here once, from the result the engine
// wrote, so that no writer decides it again by rules of its own.
type Outcome string

// The outcomes.
const (
	OutcomeApplied        Outcome = "applied"         // done (a step: committed)
	OutcomeAlreadyApplied Outcome = "already_applied" // nothing to change: it is there already
	OutcomeNoOp           Outcome = "no_op"           // its old and new texts are equal: it changes nothing
	OutcomeRead           Outcome = "read"            // a read: output, no change
	OutcomePlanned        Outcome = "planned"         // a dry run: it would be applied
	OutcomeRefused        Outcome = "refused"         // the safety policy refused it, with its reason
	OutcomeFailed         Outcome = "failed"          // it could not be done as written
	OutcomeRolledBack     Outcome = "rolled_back"     // not applied because another part of the same step failed (or --atomic took it back)
	OutcomeNotAttempted   Outcome = "not_attempted"   // never tried: something before it failed
)

// Words is the outcome as a person reads it: "already applied".
func (o Outcome) Words() string {
	switch o {
	case OutcomeAlreadyApplied:
		return "already applied"
	case OutcomeNoOp:
		return "no-op"
	case OutcomeRolledBack:
		return "rolled back"
	case OutcomeNotAttempted:
		return "not attempted"
	}
	return string(o)
}

// OpOutcome is the outcome of op, an operation of r.
func OpOutcome(r Result, op OpResult) Outcome {
	switch op.Status {
	case StatusFailed:
		if r.Class == ClassRefused {
			return OutcomeRefused
		}
		return OutcomeFailed
	case StatusRolledBack:
		return OutcomeRolledBack
	case StatusSkipped:
		return OutcomeNotAttempted
	case StatusRead:
		return OutcomeRead
	case StatusPlanned:
		return OutcomePlanned
	}
	if len(op.Replaces) > 0 {
		noop, already := true, true
		for _, rr := range op.Replaces {
			noop = noop && rr.NoOp
			already = already && (rr.AlreadyApplied || rr.NoOp)
		}
		switch {
		case noop:
			return OutcomeNoOp
		case already:
			return OutcomeAlreadyApplied
		}
	}
	if op.Status == StatusUnchanged {
		return OutcomeAlreadyApplied
	}
	return OutcomeApplied
}

// StepOutcome is the outcome of the step of r as a whole.
func StepOutcome(r Result) Outcome {
	switch r.Status {
	case StatusFailed:
		switch {
		case r.Reason == ReasonRolledBack:
			return OutcomeRolledBack
		case r.Class == ClassRefused:
			return OutcomeRefused
		}
		return OutcomeFailed
	case StatusSkipped:
		return OutcomeNotAttempted
	case StatusRead:
		return OutcomeRead
	case StatusPlanned:
		return OutcomePlanned
	case StatusUnchanged:
		noop := len(r.Ops) > 0
		for _, op := range r.Ops {
			noop = noop && OpOutcome(r, op) == OutcomeNoOp
		}
		if noop {
			return OutcomeNoOp
		}
		return OutcomeAlreadyApplied
	}
	return OutcomeApplied
}

// ExitCode is the exit code of a failure of class c: the contract (the
// README's table) that scripts and other tools rely on.
func (c Class) ExitCode() int {
	switch c {
	case ClassUsage, ClassNoBlock:
		return 2 // nothing changed
	case ClassStepFailed:
		return 1 // the step rolled back; earlier steps kept unless --atomic
	case ClassPrecondition:
		return 3
	case ClassRefused:
		return 4
	case ClassProgramFailed:
		return 5 // every step applied, but a program failed or timed out
	}
	return 1 // internal: a failure too
}

// Verdict is what a run's results come to: the one decision from results
// to the run's class and exit code, used by apply's exit code, run's,
// MCP's and every report.
type Verdict struct {
	Failed bool  // the run did not do everything it was asked
	Class  Class // the class of its failure when Failed
	// Step is the index in the results of the step that decided it, -1
	// when none did (a program did, or nothing failed).
	Step int
	// Program is the program that decided it, when one did: refused,
	// failed or timed out in a step that was not itself failed.
	Program *ProgramResult
}

// ExitCode is the verdict as an exit code: 0 when nothing failed, else
// its class's.
func (v Verdict) ExitCode() int {
	if !v.Failed {
		return 0
	}
	return v.Class.ExitCode()
}

// Judge decides what results come to. The first step that failed by an
// error of its own decides (a step taken back by --atomic did not fail
// itself, the one that did decides); when every step went through, a
// program the policy refused (it was not run; its step's files were) is
// refused, one that failed or timed out is program_failed.
//
// Exit 2 promises that nothing changed: a step whose own arguments cannot
// be used (usage, no_block) after a step that was committed is a failed
// step.
//
// loop is `autocoder run` (and an MCP session): each failed step was
// answered to the model, which went on after it by design, so only
// programs decide.
func Judge(rs []Result, loop bool) Verdict {
	committed := false
	for i, r := range rs {
		if !loop && r.Status == StatusFailed && r.Reason != ReasonRolledBack {
			c := r.Class
			if committed && (c == ClassUsage || c == ClassNoBlock) {
				c = ClassStepFailed
			}
			return Verdict{Failed: true, Class: c, Step: i}
		}
		if r.Status == StatusApplied {
			committed = true
		}
	}
	if p := ProgramTrouble(rs); p != nil {
		c := ClassProgramFailed
		if p.Status == ProgramRefused {
			c = ClassRefused
		}
		return Verdict{Failed: true, Class: c, Step: -1, Program: p}
	}
	return Verdict{Step: -1}
}

// Correctable reports whether r is a refusal the model can correct by
// sending the operation differently (a whole file with nothing left out,
// a path git does not ignore), as against one only the user can lift (a
// denied path, uncommitted work, a program not allowed): the dialects
// class it as retryable.
func Correctable(r Result) bool {
	return r.Status == StatusFailed && r.Class == ClassRefused && (r.Reason == ReasonLosesCode || r.Reason == ReasonIgnored)
}

// Rehinted is r with hint in place of its own (and of its ops' that
// repeat it) when r failed for reason: a dialect's writer words the advice
// in the operations that dialect has.
func Rehinted(r Result, reason, hint string) Result {
	if r.Reason != reason || r.Status != StatusFailed {
		return r
	}
	old := r.Hint
	r.Hint = hint
	r.Ops = slices.Clone(r.Ops)
	for i := range r.Ops {
		if r.Ops[i].Hint != "" && r.Ops[i].Hint == old {
			r.Ops[i].Hint = hint
		}
	}
	return r
}
