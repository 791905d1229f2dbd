package step

// Status is the outcome of a step or of one of its ops.
type Status string

// The outcomes.
const (
	StatusApplied   Status = "applied"   // committed (or, for an op, done)
	StatusUnchanged Status = "unchanged" // nothing to change: no commit
	StatusPlanned   Status = "planned"   // --dry-run: would be applied
	StatusFailed    Status = "failed"    // rolled back, nothing of it remains
	StatusSkipped   Status = "skipped"   // not tried: an earlier step failed (for an op: an earlier op or step failed, or in a dry run its step fails); feedback says "not attempted"
	StatusRead      Status = "read"      // a read-only step: feedback, no commit
	// StatusRolledBack is an op that was done, then undone with its step:
	// a later op of the step failed, or --atomic or an interrupt took the
	// step back. Nothing of it remains; feedback never calls it applied.
	StatusRolledBack Status = "rolled_back"
)

// ReplaceResult is what the matcher did with one Edit.
type ReplaceResult struct {
	Index          int    `json:"index"`
	Tier           string `json:"tier,omitempty" jsonschema:"the matcher tier that found the old text: exact, or a tolerant one"` // which matcher tier matched
	Matches        int    `json:"matches" jsonschema:"how many places the old text matched"`
	AlreadyApplied bool   `json:"already_applied,omitempty"`
	// NoOp: the edit's old and new texts are equal, so it changes nothing.
	// It is a warning, not a failure: the step goes on without it.
	NoOp bool `json:"noop,omitempty"`
	// AppliedAt: the old text occurs at these lines too, where the edit
	// was already applied; the one occurrence left was the place.
	AppliedAt []int `json:"applied_at,omitempty"`
	StartLine int   `json:"start_line,omitempty" jsonschema:"the first line replaced, 1-based, in the file before the edit"` // 1-based, in the file before the edit
	EndLine   int   `json:"end_line,omitempty"`
}

// OpResult is the outcome of one op.
type OpResult struct {
	Kind     OpKind          `json:"kind"`
	Path     string          `json:"path"`
	To       string          `json:"to,omitempty"`
	Status   Status          `json:"status"`
	Message  string          `json:"message,omitempty"`                                 // e.g. "replaced an existing file"
	Output   string          `json:"output,omitempty" jsonschema:"what a read op read"` // read kinds: the data
	Replaces []ReplaceResult `json:"replaces,omitempty"`
	Error    string          `json:"error,omitempty"`
	Hint     string          `json:"hint,omitempty"`
	Diff     string          `json:"diff,omitempty" jsonschema:"a dry run: the op's change as a unified diff"` // --dry-run: unified diff
}

// ProgramResult is the outcome of one program.
type ProgramResult struct {
	Name       string        `json:"name"`
	Status     ProgramStatus `json:"status" jsonschema:"success, failure, timeout, refused, running, terminated or not_attempted"`
	Stdout     string        `json:"stdout"`
	Stderr     string        `json:"stderr"`
	ReturnCode int           `json:"returncode" jsonschema:"the exit code; -1 when the program did not run or was killed"` // -1 when the program did not run or was killed
	Runtime    float64       `json:"runtime" jsonschema:"seconds it ran"`                                                  // seconds it ran, as seed 001's program_checks report it
	Error      string        `json:"error,omitempty"`
	Hint       string        `json:"hint,omitempty"` // what to do, for a refused program
}

// ProgramStatus is the outcome of one program: one of the Program*
// constants. Its JSON is the constant's string.
type ProgramStatus string

// The outcomes of a program. A refused program was not run; the step it
// belongs to still applied its files. A failed or timed-out one did run.
const (
	ProgramSuccess ProgramStatus = "success"
	ProgramFailure ProgramStatus = "failure"
	ProgramTimeout ProgramStatus = "timeout"
	ProgramRefused ProgramStatus = "refused"
	// A live program (Program.Live) that is still running: the result
	// holds its output so far (or since the last report).
	ProgramRunning ProgramStatus = "running"
	// A live program that was stopped: by check_program terminal: true, at
	// the end of the command or of the run. Error says which.
	ProgramTerminated ProgramStatus = "terminated"
	// A program of a step that failed or was skipped: never run.
	ProgramNotAttempted ProgramStatus = "not_attempted"
)

// ProgramTrouble is the first program of the results that did not succeed
// (refused, failed or timed out) in a step that was not itself failed, or
// nil: what makes a run exit 4 or 5 although every step applied.
func ProgramTrouble(rs []Result) *ProgramResult {
	for _, r := range rs {
		if r.Status == StatusFailed || r.Status == StatusSkipped {
			continue
		}
		for i, p := range r.Programs {
			if p.Status == ProgramRefused || p.Status == ProgramFailure || p.Status == ProgramTimeout {
				return &r.Programs[i]
			}
		}
	}
	return nil
}

// Result is the outcome of one step (or of an unreadable block, when Step is
// nil and ParseErr is set).
type Result struct {
	Step     *Step       `json:"-"`
	ParseErr *ParseError `json:"parse_error,omitempty" jsonschema:"for a block that could not be read: why"`
	StepID   string      `json:"step_id" jsonschema:"the step's id: the block's own, or one autocoder gave it"`
	Status   Status      `json:"status"`
	Commit   string      `json:"commit,omitempty" jsonschema:"the step's commit, when it made one"`
	// ProgramCommit records the files the step's programs changed.
	ProgramCommit string          `json:"program_commit,omitempty" jsonschema:"the commit of the files the step's programs changed"`
	Ops           []OpResult      `json:"ops,omitempty"`
	Programs      []ProgramResult `json:"programs,omitempty"`
	Error         string          `json:"error,omitempty" jsonschema:"what failed: why"`
	Hint          string          `json:"hint,omitempty" jsonschema:"what to do about it"`
	// Class is the class of a failure (step.ClassOf of its error): cmd maps
	// it to the exit code and each dialect's feedback to its own codes. It
	// means nothing unless Status is failed; its zero value is internal, so
	// JSON leaves it out then (report writes it for every failure).
	Class Class `json:"class,omitempty"`
	// Runtime marks the report on live programs between turns (seed 001's
	// program_runtime_feedback): Programs only, no ops, no commit but
	// ProgramCommit (the files they changed meanwhile).
	Runtime bool `json:"runtime,omitempty" jsonschema:"a report on programs that keep running, between turns: programs only"`
	// Reason is finer than Class, for the feedback writers (see the Reason*
	// constants): derived from the error's type, never from its wording.
	Reason string `json:"reason,omitempty" jsonschema:"finer than class: why the step failed or was not attempted"`
	// Op and Line say where a failure is: the 1-based index of the op it
	// belongs to (0: the step as a whole) and its line in the response.
	// Writers place the error with them, never by reading its text.
	Op   int `json:"op,omitempty" jsonschema:"the 1-based index of the operation the failure belongs to; absent when it belongs to the step as a whole"`
	Line int `json:"line,omitempty" jsonschema:"the response line of what failed"`
}

// The failure classes of Result.Reason.
const (
	ReasonNotFound     = "not_found"    // a path the step needs does not exist
	ReasonExists       = "exists"       // a target exists and the op may not replace it
	ReasonWrongKind    = "wrong_kind"   // a folder where a file is needed, or the reverse
	ReasonNoMatch      = "no_match"     // an edit's old text is not in the file
	ReasonAmbiguous    = "ambiguous"    // an edit's old text is in the file several times
	ReasonPrecondition = "precondition" // check_*, expectedSha256
	ReasonRefused      = "refused"      // the safety policy (exit code 4)
	ReasonLosesCode    = "loses_code"   // refused: a whole-file write with a placeholder for code left out
	ReasonIgnored      = "ignored"      // refused: a new file git ignores
	ReasonInvalid      = "invalid"      // the op cannot be done as written
	ReasonInternal     = "internal"     // anything else
	ReasonRolledBack   = "rolled_back"  // applied, then taken back by --atomic
)

// Unreadable is the result of a block that could not be read: failed, with
// the reader's error and hint. Among readable blocks it is a failed step
// (exit code 1); when no block of the response is readable (none) the
// response has no instruction block (exit code 2). One rule for apply,
// the engine's run and the bridge.
func Unreadable(err *ParseError, none bool) Result {
	c := ClassStepFailed
	if none {
		c = ClassNoBlock
	}
	return Result{ParseErr: err, Status: StatusFailed, Error: err.Error(), Hint: HintOf(err), Class: c, Reason: ReasonInvalid}
}
