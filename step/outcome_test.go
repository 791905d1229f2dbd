package step

import "testing"

// TestJudge: the one decision from results to a run's class. The first
// step that failed by its own error decides (not one --atomic took back);
// usage after a commit is a failed step; programs decide when every step
// went through; in a loop (run, MCP) failed steps were answered and do not
// decide.
func TestJudge(t *testing.T) {
	t.Parallel()
	applied := Result{Status: StatusApplied}
	back := Result{Status: StatusFailed, Reason: ReasonRolledBack, Class: ClassStepFailed}
	usage := Result{Status: StatusFailed, Class: ClassUsage}
	refused := Result{Status: StatusFailed, Class: ClassRefused}
	progRefused := Result{Status: StatusApplied, Programs: []ProgramResult{{Status: ProgramRefused}}}
	progFailed := Result{Status: StatusApplied, Programs: []ProgramResult{{Status: ProgramFailure}}}
	for _, c := range []struct {
		name   string
		rs     []Result
		loop   bool
		failed bool
		class  Class
		step   int
	}{
		{"all applied", []Result{applied, applied}, false, false, 0, -1},
		{"usage first: nothing changed", []Result{usage}, false, true, ClassUsage, 0},
		{"usage after a commit is a failed step", []Result{applied, usage}, false, true, ClassStepFailed, 1},
		{"atomic: the step that failed decides", []Result{back, refused}, false, true, ClassRefused, 1},
		{"a refused program", []Result{progRefused, progFailed}, false, true, ClassRefused, -1},
		{"a failed program", []Result{progFailed}, false, true, ClassProgramFailed, -1},
		{"a failed step decides before programs", []Result{progFailed, refused}, false, true, ClassRefused, 1},
		{"loop: failed steps were answered", []Result{refused, applied}, true, false, 0, -1},
		{"loop: programs decide", []Result{refused, progFailed}, true, true, ClassProgramFailed, -1},
	} {
		v := Judge(c.rs, c.loop)
		if v.Failed != c.failed || v.Failed && v.Class != c.class || v.Step != c.step {
			t.Errorf("%s: %+v, want failed %v class %v step %d", c.name, v, c.failed, c.class, c.step)
		}
	}
}

// TestOutcomes: each op and step result has one outcome.
func TestOutcomes(t *testing.T) {
	t.Parallel()
	refused := Result{Status: StatusFailed, Class: ClassRefused}
	failed := Result{Status: StatusFailed, Class: ClassStepFailed}
	for _, c := range []struct {
		r    Result
		op   OpResult
		want Outcome
	}{
		{refused, OpResult{Status: StatusFailed}, OutcomeRefused},
		{failed, OpResult{Status: StatusFailed}, OutcomeFailed},
		{failed, OpResult{Status: StatusRolledBack}, OutcomeRolledBack},
		{failed, OpResult{Status: StatusSkipped}, OutcomeNotAttempted},
		{Result{Status: StatusUnchanged}, OpResult{Status: StatusUnchanged, Replaces: []ReplaceResult{{AlreadyApplied: true}}}, OutcomeAlreadyApplied},
		{Result{Status: StatusUnchanged}, OpResult{Status: StatusUnchanged, Replaces: []ReplaceResult{{NoOp: true}}}, OutcomeNoOp},
		{Result{Status: StatusApplied}, OpResult{Status: StatusApplied, Replaces: []ReplaceResult{{NoOp: true}, {StartLine: 3}}}, OutcomeApplied},
		{Result{Status: StatusRead}, OpResult{Status: StatusRead}, OutcomeRead},
	} {
		if got := OpOutcome(c.r, c.op); got != c.want {
			t.Errorf("op %+v of %+v: %s, want %s", c.op, c.r, got, c.want)
		}
	}
	for _, c := range []struct {
		r    Result
		want Outcome
	}{
		{refused, OutcomeRefused},
		{failed, OutcomeFailed},
		{Result{Status: StatusFailed, Reason: ReasonRolledBack}, OutcomeRolledBack},
		{Result{Status: StatusSkipped}, OutcomeNotAttempted},
		{Result{Status: StatusApplied}, OutcomeApplied},
		{Result{Status: StatusUnchanged, Ops: []OpResult{{Status: StatusUnchanged, Replaces: []ReplaceResult{{NoOp: true}}}}}, OutcomeNoOp},
		{Result{Status: StatusUnchanged, Ops: []OpResult{{Status: StatusUnchanged}}}, OutcomeAlreadyApplied},
	} {
		if got := StepOutcome(c.r); got != c.want {
			t.Errorf("step %+v: %s, want %s", c.r, got, c.want)
		}
	}
}

// TestUnreadable: an unreadable block among readable ones is a failed step
// (exit 1); when none is readable the response has no block (exit 2). The
// reader's message and hint are the result's.
func TestUnreadable(t *testing.T) {
	t.Parallel()
	pe := &ParseError{Dialect: "axon", Msg: "unknown act", Fix: "use write_file"}
	for _, c := range []struct {
		none bool
		exit int
	}{{false, 1}, {true, 2}} {
		r := Unreadable(pe, c.none)
		if r.Status != StatusFailed || r.ParseErr != pe || r.Hint != "use write_file" || r.Reason != ReasonInvalid {
			t.Fatalf("Unreadable(none=%v) = %+v", c.none, r)
		}
		if got := Judge([]Result{r}, false).ExitCode(); got != c.exit {
			t.Errorf("none=%v: exit %d, want %d", c.none, got, c.exit)
		}
	}
}
