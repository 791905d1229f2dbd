package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/termsafe"
)

// Run is what one apply did: its results in order, on which work branch.
type Run struct {
	Branch  string // the work branch after the run; "" when not on one
	DryRun  bool
	Results []step.Result
	// Code is the run's exit code (step.Judge's verdict).
	Code int
	// Subject is a step in a few words, as its commit's subject says it
	// (txn.Subject); nil: the first line of its reason, or its ops.
	Subject func(*step.Step) string
	// SwitchedFrom is the branch HEAD was on when the run made a new work
	// branch ("" a detached HEAD), StartCommit the commit it started from
	// ("" none yet); both empty when the run stayed on its branch.
	SwitchedFrom, StartCommit string
	// Earlier is the work branch made from SwitchedFrom before this run
	// made a new one beside it ("" none): said, so that nobody looks for
	// the new steps there.
	Earlier string
	// Patch is a dry run's whole patch (txn.Report.Patch): in text, a dry
	// run's standard output holds it alone, and its step lines go to
	// standard error. PatchRaw writes it unescaped (standard output is not
	// a terminal: a file or a pipe must get bytes git apply accepts).
	Patch    string
	PatchRaw bool
	// Allowed is the program policy, to say in a dry run which programs
	// would run; nil: every program is listed as it would be asked for.
	Allowed func(step.Program) (bool, string)
	// RefusedHint is the hint for the user of a program the policy
	// refused, naming what lets it run (a flag, a key of autocoder.toml);
	// nil or "": the result's own hint, written for the model.
	RefusedHint func(step.Program) string
	// StatusColor colours the status words of the step lines, PatchColor
	// a dry run's patch: cmd sets them when that output is a terminal and
	// NO_COLOR is not set (color.go).
	StatusColor, PatchColor bool
	// Quiet (--quiet) leaves out of the text what went well: the lines of
	// the steps that applied with no trouble and the work branch lines.
	// A failed step, a program that failed or was refused, and every
	// error and hint are still written; the JSON output and a dry run's
	// patch are the same.
	Quiet bool
}

// result is a result as the JSON output writes it: with its outcome (and
// each op's), and with its class and exit code when it failed by an error
// of its own (a step taken back by --atomic says so in its reason instead).
type result struct {
	step.Result
	Outcome step.Outcome `json:"outcome" jsonschema:"what became of the step: applied, already_applied, no_op, read, planned, refused, failed, rolled_back or not_attempted"`
	Ops     []opResult   `json:"ops,omitempty"`
	Class   string       `json:"class,omitempty" jsonschema:"a failed step's class of failure: internal, usage, no_block, step_failed, precondition, refused, program_failed"`
	Code    int          `json:"code,omitempty" jsonschema:"the exit code of a failed step's class"`
}

// opResult is an op's result with its outcome.
type opResult struct {
	step.OpResult
	Outcome step.Outcome `json:"outcome" jsonschema:"what became of the operation: applied, already_applied, no_op, read, planned, refused, failed, rolled_back or not_attempted"`
}

// JSON writes the run as apply --format json does: the branch, whether it
// was a dry run, every result, and the exit code.
func (r Run) JSON(w io.Writer) error {
	out := make([]result, len(r.Results))
	for i, res := range r.Results {
		out[i].Result = res
		out[i].Outcome = step.StepOutcome(res)
		for _, op := range res.Ops {
			out[i].Ops = append(out[i].Ops, opResult{OpResult: op, Outcome: step.OpOutcome(res, op)})
		}
		if res.Status == step.StatusFailed && res.Reason != step.ReasonRolledBack {
			out[i].Class = res.Class.String()
			out[i].Code = res.Class.ExitCode()
		}
	}
	return JSON(w, runJSON{Branch: r.Branch, DryRun: r.DryRun, Results: out, ExitCode: r.Code})
}

// runJSON is apply --format json (schema/apply.schema.json). The fields
// are in the order encoding/json gave the map this was before.
type runJSON struct {
	Branch   string   `json:"branch" jsonschema:"the work branch after the run; empty when HEAD is not on one"`
	DryRun   bool     `json:"dry_run" jsonschema:"true for --dry-run: nothing was changed and no commit made"`
	ExitCode int      `json:"exit_code" jsonschema:"the exit code of the process (0 all applied, 1 a step failed, 2 usage or no block, 3 a precondition, 4 refused, 5 a program failed)"`
	Results  []result `json:"results" jsonschema:"one result per block of the response, in order, then one per program that kept running"`
}

// unreadableJSON is apply --format json for a response with no readable
// block.
type unreadableJSON struct {
	Errors   []*step.ParseError `json:"errors" jsonschema:"why each block could not be read, with its position in the response"`
	ExitCode int                `json:"exit_code" jsonschema:"the exit code of the process: 2"`
	Results  [0]struct{}        `json:"results" jsonschema:"always empty: nothing was applied"`
	Reason   string             `json:"reason" jsonschema:"why nothing was applied, also when no block was found at all (errors is then empty)"`
	Hint     string             `json:"hint,omitempty" jsonschema:"what to write instead"`
}

// Unreadable writes the JSON output of a response with no readable block:
// no results, the errors of its blocks, the exit code, and the reason and
// hint (which say what autocoder reads when no block was found at all).
func Unreadable(w io.Writer, errs []*step.ParseError, code int, reason, hint string) error {
	if errs == nil {
		errs = []*step.ParseError{}
	}
	return JSON(w, unreadableJSON{Errors: errs, ExitCode: code, Reason: reason, Hint: hint})
}

// Text is the human output: one line per step on out (its status, id,
// commit and what it did, then the diffs of a dry run, the matcher's notes,
// what reads and programs printed), and on errw what went wrong and what to
// do, with the response's line numbers.
func (r Run) Text(out, errw io.Writer) {
	// The human output quotes the response and the programs it ran: on a
	// terminal their escape sequences must show, not act.
	var patchOut io.Writer = termsafe.Writer{W: out}
	if r.PatchRaw {
		patchOut = out
	}
	out = termsafe.Writer{W: out}
	if r.DryRun {
		// Standard output holds the patch alone, so that
		// `autocoder apply --dry-run r.md > p.patch` is a patch.
		out = termsafe.Writer{W: errw}
	}
	ids := make([]string, len(r.Results))
	for i, res := range r.Results {
		ids[i] = res.StepID
		if res.ParseErr != nil {
			ids[i] = fmt.Sprintf("(block at line %d)", res.ParseErr.Pos.Line)
		}
	}
	wid := idWidth(ids)
	for i, res := range r.Results {
		if r.Quiet && res.Status != step.StatusFailed && step.ProgramTrouble([]step.Result{res}) == nil {
			continue
		}
		id := ids[i]
		commit := ""
		if len(res.Commit) >= 12 {
			commit = res.Commit[:12]
		}
		// A failed step says which failure it is, in the outcome's
		// words: refused by the policy, or rolled back with another.
		word := string(res.Status)
		if o := step.StepOutcome(res); o == step.OutcomeRefused || o == step.OutcomeRolledBack && !r.DryRun {
			word = o.Words()
		}
		painter{w: out, on: r.StatusColor}.status(res.Status, word, 11)
		fmt.Fprint(out, strings.TrimRight(fmt.Sprintf("  %-*s %-12s %s", wid, id, commit, r.describe(res)), " "), "\n")
		if res.Status == step.StatusSkipped && res.Error != "" {
			fmt.Fprintf(out, "    %s\n", res.Error) // why, when it is not an earlier failure: apply -i's skip or quit
		}
		if r.DryRun && res.Step != nil && res.Status != step.StatusFailed && res.Status != step.StatusSkipped {
			for _, pr := range res.Step.Programs {
				fmt.Fprintf(out, "    program %s\n", r.program(pr))
			}
		}
		outputs := 0
		for _, op := range res.Ops {
			if op.Status == step.StatusRead && op.Output != "" {
				outputs++
			}
		}
		for _, op := range res.Ops {
			for _, m := range op.Replaces {
				if m.NoOp {
					fmt.Fprintf(out, "    %s: edit %d is a no-op (old and new texts are equal); nothing changed\n", op.Path, m.Index+1)
				} else if len(m.AppliedAt) > 0 {
					fmt.Fprintf(out, "    %s: edit %d replaced line %d; already applied at the other occurrences\n", op.Path, m.Index+1, m.StartLine)
				} else if m.AlreadyApplied {
					fmt.Fprintf(out, "    %s: edit %d was already applied; nothing changed\n", op.Path, m.Index+1)
				} else if m.Tier != "" && m.Tier != "exact" {
					fmt.Fprintf(out, "    %s: edit %d matched lines %d-%d by the %s tier\n", op.Path, m.Index+1, m.StartLine, m.EndLine, m.Tier)
				}
			}
			if op.Status == step.StatusRead && op.Output != "" {
				if outputs > 1 {
					// Which output is which, when a step reads several.
					fmt.Fprintf(out, "    %s %s:\n", op.Kind, op.Path)
				}
				fmt.Fprint(out, indent(op.Output))
			}
			if op.Status == step.StatusRolledBack ||
				r.DryRun && res.Status == step.StatusFailed && op.Status == step.StatusSkipped && op.Message != "" {
				// Done, then undone with its failed step, or in a dry
				// run not applied because its step fails: said, so that
				// nobody takes the file for changed (or for one that
				// would change).
				fmt.Fprintf(out, "    %s %s: %s\n", op.Kind, op.Path, op.Message)
			}
		}
		for i, pr := range res.Programs {
			switch pr.Status {
			case step.ProgramRefused, step.ProgramNotAttempted:
				// It did not run: -1 is no exit code of its.
				fmt.Fprintf(out, "    program %s: %s (not run)\n", pr.Name, pr.Status)
			default:
				fmt.Fprintf(out, "    program %s: %s (exit code %d)\n", pr.Name, pr.Status, pr.ReturnCode)
			}
			if pr.Stdout != "" {
				fmt.Fprint(out, indent(pr.Stdout))
			}
			if pr.Stderr != "" {
				fmt.Fprint(out, indent(pr.Stderr))
			}
			if pr.Error != "" && pr.Status != step.ProgramRefused {
				fmt.Fprint(out, indent(pr.Error))
			}
			if pr.Status == step.ProgramRefused {
				// Not run, while the step's files applied: said where
				// errors go, with what to do.
				hint := pr.Hint
				if r.RefusedHint != nil && res.Step != nil && i < len(res.Step.Programs) {
					if h := r.RefusedHint(res.Step.Programs[i]); h != "" {
						hint = h
					}
				}
				Error(errw, fmt.Sprintf("step %s: program %s: %s", id, pr.Name, pr.Error), hint)
			}
		}
		if res.ProgramCommit != "" {
			fmt.Fprintf(out, "    the files the programs changed: commit %s\n", res.ProgramCommit[:12])
		}
		if res.Status == step.StatusFailed && res.Error != "" {
			// An op's error names its own line (txn.OpError); the step's
			// is placed here, by the result's fields.
			where := ""
			line := res.Line
			if line == 0 && res.Step != nil {
				line = res.Step.Pos.Line
			}
			if res.Op == 0 && line > 0 {
				where = fmt.Sprintf(" (response line %d)", line)
			}
			Error(errw, fmt.Sprintf("step %s%s: %s", id, where, res.Error), res.Hint)
		}
	}
	if r.DryRun {
		painter{w: patchOut, on: r.PatchColor && !r.PatchRaw}.patch(r.Patch)
	}
	if r.Branch != "" && !r.DryRun && !r.Quiet {
		if r.SwitchedFrom != "" || r.StartCommit != "" {
			from := r.SwitchedFrom
			if from == "" {
				from = "a detached HEAD"
			}
			at := ""
			if r.StartCommit != "" {
				at = " at " + r.StartCommit
			}
			fmt.Fprintf(out, "switched to the new work branch %s, made from %s%s\n", r.Branch, from, at)
			switch {
			case r.SwitchedFrom != "" && r.StartCommit == "":
				// An unborn branch: there is nothing to switch to or merge
				// into; the branch starts at the work.
				fmt.Fprintf(out, "to bring the work back: git switch -c %s %s\n", r.SwitchedFrom, r.Branch)
			case r.SwitchedFrom != "":
				fmt.Fprintf(out, "to bring the work back: git switch %s && git merge %s\n", r.SwitchedFrom, r.Branch)
			}
			if r.Earlier != "" {
				fmt.Fprintf(out, "%s, made from %s before, is left as it was (git switch %s)\n", r.Earlier, r.SwitchedFrom, r.Earlier)
			}
		}
		fmt.Fprintf(out, "work branch: %s (review with git log, drop steps with autocoder undo)\n", r.Branch)
	}
}

// program is a program a dry run would run: its name, its command line,
// and whether it would run or the policy would refuse it.
func (r Run) program(pr step.Program) string {
	cmd := pr.Command
	if pr.Args != nil {
		cmd = strings.Join(append([]string{pr.Command}, pr.Args...), " ")
	}
	s := cmd
	if pr.Name != "" && pr.Name != pr.Command {
		s = pr.Name + ": " + cmd
	}
	if pr.Terminate {
		return pr.Name + ": would be stopped"
	}
	if r.Allowed != nil {
		if ok, why := r.Allowed(pr); !ok {
			// With what would let it run (--allow-programs, an allow
			// entry), as apply says of a program it refused.
			if r.RefusedHint != nil {
				if h := r.RefusedHint(pr); h != "" {
					why += "; " + h
				}
			}
			return s + ": would be refused by the program policy: " + why
		}
	}
	return s + ": would run"
}

// describe is a step in a few words: a finish step's summary, or its
// subject.
func (r Run) describe(res step.Result) string {
	s := res.Step
	if s == nil {
		return ""
	}
	if s.Finish {
		return "finish: " + s.Summary
	}
	if r.Subject != nil {
		return r.Subject(s)
	}
	if s.Reason != "" {
		first, _, _ := strings.Cut(strings.TrimSpace(s.Reason), "\n")
		return first
	}
	var parts []string
	for _, op := range s.Ops {
		parts = append(parts, string(op.Kind)+" "+op.Path)
	}
	return strings.Join(parts, ", ")
}
