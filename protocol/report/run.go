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
	// Code is the run's exit code, and CodeOf the exit code of a failure's
	// class; both come from cmd/autocoder, which owns that mapping.
	Code   int
	CodeOf func(step.Class) int
	// Subject is a step in a few words, as its commit's subject says it
	// (txn.Subject); nil: the first line of its reason, or its ops.
	Subject func(*step.Step) string
	// SwitchedFrom is the branch HEAD was on when the run made a new work
	// branch ("" a detached HEAD), StartCommit the commit it started from
	// ("" none yet); both empty when the run stayed on its branch.
	SwitchedFrom, StartCommit string
}

// result is a result as the JSON output writes it: with its class and exit
// code when it failed by an error of its own (a step taken back by --atomic
// says so in its reason instead).
type result struct {
	step.Result
	Class string `json:"class,omitempty"`
	Code  int    `json:"code,omitempty"`
}

// JSON writes the run as apply --format json does: the branch, whether it
// was a dry run, every result, and the exit code.
func (r Run) JSON(w io.Writer) error {
	out := make([]result, len(r.Results))
	for i, res := range r.Results {
		out[i].Result = res
		if res.Status == step.StatusFailed && res.Reason != step.ReasonRolledBack {
			out[i].Class = res.Class.String()
			if r.CodeOf != nil {
				out[i].Code = r.CodeOf(res.Class)
			}
		}
	}
	return JSON(w, map[string]any{"branch": r.Branch, "dry_run": r.DryRun, "results": out, "exit_code": r.Code})
}

// Unreadable writes the JSON output of a response with no readable block:
// no results, the errors of its blocks, and the exit code.
func Unreadable(w io.Writer, errs []*step.ParseError, code int) error {
	if errs == nil {
		errs = []*step.ParseError{}
	}
	return JSON(w, map[string]any{"results": []any{}, "errors": errs, "exit_code": code})
}

// Text is the human output: one line per step on out (its status, id,
// commit and what it did, then the diffs of a dry run, the matcher's notes,
// what reads and programs printed), and on errw what went wrong and what to
// do, with the response's line numbers.
func (r Run) Text(out, errw io.Writer) {
	// The human output quotes the response and the programs it ran: on a
	// terminal their escape sequences must show, not act.
	out = termsafe.Writer{W: out}
	for _, res := range r.Results {
		id := res.StepID
		if res.ParseErr != nil {
			id = fmt.Sprintf("(block at line %d)", res.ParseErr.Pos.Line)
		}
		commit := ""
		if len(res.Commit) >= 12 {
			commit = res.Commit[:12]
		}
		fmt.Fprintf(out, "%-9s  %-14s %-12s %s\n", res.Status, id, commit, r.describe(res))
		for _, op := range res.Ops {
			if r.DryRun && op.Diff != "" {
				fmt.Fprint(out, indent(op.Diff))
			}
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
				fmt.Fprint(out, indent(op.Output))
			}
		}
		for _, pr := range res.Programs {
			fmt.Fprintf(out, "    program %s: %s (exit code %d)\n", pr.Name, pr.Status, pr.ReturnCode)
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
				Error(errw, fmt.Sprintf("step %s: program %s: %s", id, pr.Name, pr.Error), pr.Hint)
			}
		}
		if res.ProgramCommit != "" {
			fmt.Fprintf(out, "    the files the programs changed: commit %s\n", res.ProgramCommit[:12])
		}
		if res.Status == step.StatusFailed && res.Error != "" {
			where := ""
			if res.Step != nil && res.Step.Pos.Line > 0 && !strings.Contains(res.Error, "(response line") {
				where = fmt.Sprintf(" (response line %d)", res.Step.Pos.Line)
			}
			Error(errw, fmt.Sprintf("step %s%s: %s", id, where, res.Error), res.Hint)
		}
	}
	if r.Branch != "" && !r.DryRun {
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
			if r.SwitchedFrom != "" {
				fmt.Fprintf(out, "to bring the work back: git switch %s && git merge %s\n", r.SwitchedFrom, r.Branch)
			}
		}
		fmt.Fprintf(out, "work branch: %s (review with git log, drop steps with autocoder undo)\n", r.Branch)
	}
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
