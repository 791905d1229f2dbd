package protocol

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/autocoder/autocoder/internal/golden"
	"github.com/autocoder/autocoder/step"
)

// outcome is one outcome of a step as the feedback must tell it apart.
type outcome struct {
	name string
	r    step.Result
}

// outcomes are issue 12's list, each as the engine reports it: applied,
// already applied, no-op, refused, failed, rolled back, not attempted, and
// a program that ran, failed, timed out, was refused, is still running, was
// stopped, or was not attempted, and the report on live programs between
// turns. Texts an outcome shares with another are the same, so that only
// the outcome itself can tell them apart.
func outcomes(dialect string) []outcome {
	edit := step.Op{Kind: step.OpReplace, Path: "a.go", Edits: []step.Edit{{Old: "x := 1", New: "x := 2"}}}
	write := step.Op{Kind: step.OpWrite, Path: "b.go", Content: []byte("package b\n")}
	prog := step.Program{Name: "test", Command: "go test ./..."}
	mk := func(status step.Status, ops []step.Op, progs []step.Program) step.Result {
		s := &step.Step{ID: "s1", Dialect: dialect, Reason: "edit a.go", Ops: ops, Programs: progs}
		return step.Result{Step: s, StepID: "s1", Status: status}
	}
	var out []outcome
	add := func(name string, r step.Result) { out = append(out, outcome{name, r}) }

	r := mk(step.StatusApplied, []step.Op{edit}, nil)
	r.Commit = "0123456789abcdef0123456789abcdef01234567"
	r.Ops = []step.OpResult{{Kind: step.OpReplace, Path: "a.go", Status: step.StatusApplied,
		Replaces: []step.ReplaceResult{{Index: 0, Tier: "exact", Matches: 1, StartLine: 3, EndLine: 3}}}}
	add("applied", r)

	r = mk(step.StatusUnchanged, []step.Op{edit}, nil)
	r.Ops = []step.OpResult{{Kind: step.OpReplace, Path: "a.go", Status: step.StatusUnchanged,
		Replaces: []step.ReplaceResult{{Index: 0, AlreadyApplied: true}}}}
	add("already applied", r)

	r = mk(step.StatusUnchanged, []step.Op{edit}, nil)
	r.Ops = []step.OpResult{{Kind: step.OpReplace, Path: "a.go", Status: step.StatusUnchanged,
		Replaces: []step.ReplaceResult{{Index: 0, NoOp: true}}}}
	add("no-op", r)

	failedStep := func(class step.Class, reason string) step.Result {
		r := mk(step.StatusFailed, []step.Op{edit}, nil)
		r.Class, r.Reason, r.Error, r.Hint = class, reason, "replace a.go: it went wrong", "do it right"
		r.Ops = []step.OpResult{{Kind: step.OpReplace, Path: "a.go", Status: step.StatusFailed, Error: "it went wrong", Hint: "do it right"}}
		return r
	}
	add("refused", failedStep(step.ClassRefused, step.ReasonRefused))
	add("failed", failedStep(step.ClassStepFailed, step.ReasonNoMatch))

	r = mk(step.StatusFailed, []step.Op{write, edit}, nil)
	r.Class, r.Reason, r.Error, r.Hint = step.ClassStepFailed, step.ReasonNoMatch, "replace a.go: it went wrong", "do it right"
	r.Ops = []step.OpResult{
		{Kind: step.OpWrite, Path: "b.go", Status: step.StatusRolledBack, Message: "rolled back, not applied: a later operation of this step failed, and the step was taken back whole"},
		{Kind: step.OpReplace, Path: "a.go", Status: step.StatusFailed, Error: "it went wrong", Hint: "do it right"}}
	add("failed, an earlier op rolled back", r)

	r = mk(step.StatusSkipped, []step.Op{edit}, nil)
	r.Ops = []step.OpResult{{Kind: step.OpReplace, Path: "a.go", Status: step.StatusSkipped, Message: "not attempted: an earlier step failed"}}
	add("not attempted", r)

	program := func(status step.Status, pr step.ProgramResult) step.Result {
		r := mk(status, nil, []step.Program{prog})
		pr.Name = "test"
		if pr.Status != step.ProgramRefused && pr.Status != step.ProgramNotAttempted {
			pr.Stdout = "ok\n" // it ran
		}
		r.Programs = []step.ProgramResult{pr}
		return r
	}
	add("program ran", program(step.StatusApplied, step.ProgramResult{Status: step.ProgramSuccess, Runtime: 1.5}))
	add("program failed", program(step.StatusApplied, step.ProgramResult{Status: step.ProgramFailure, ReturnCode: 1, Runtime: 1.5}))
	add("program timed out", program(step.StatusApplied, step.ProgramResult{Status: step.ProgramTimeout, ReturnCode: -1, Runtime: 1.5, Error: "stopped after 1.5s"}))
	add("program refused", program(step.StatusApplied, step.ProgramResult{Status: step.ProgramRefused, ReturnCode: -1,
		Error: "refused to run \"go test ./...\"", Hint: "allow it in autocoder.toml [programs]"}))
	add("program still running", program(step.StatusApplied, step.ProgramResult{Status: step.ProgramRunning, ReturnCode: -1, Runtime: 1.5}))
	add("program stopped", program(step.StatusApplied, step.ProgramResult{Status: step.ProgramTerminated, ReturnCode: -1, Runtime: 1.5}))
	add("program not attempted", program(step.StatusSkipped, step.ProgramResult{Status: step.ProgramNotAttempted, ReturnCode: -1,
		Error: "not attempted: an earlier step failed"}))
	// Between turns of a run: what a program that keeps running wrote since
	// the last answer (seed 001's program_runtime_feedback).
	r = step.Result{Step: &step.Step{ID: "s1", Dialect: dialect, Reason: "the programs that keep running"}, StepID: "s1",
		Status: step.StatusRead, Runtime: true,
		Programs: []step.ProgramResult{{Name: "test", Status: step.ProgramRunning, ReturnCode: -1, Runtime: 1.5, Stdout: "ok\n"}}}
	add("live program's new output", r)
	return out
}

// TestFeedbackTellsEveryOutcomeApart: in each dialect the answer to every
// outcome of issue 12's list differs from the answer to every other (so a
// model can tell them apart), and the answers to all of them are golden
// (testdata/outcomes/DIALECT.golden).
func TestFeedbackTellsEveryOutcomeApart(t *testing.T) {
	for _, d := range []string{"autocoder-json", "mcp", "axon", "apply_patch", "udiff", "search-replace", "whole-file", "editor-json"} {
		t.Run(d, func(t *testing.T) {
			os := outcomes(d)
			if noPrograms[d] {
				// The edit formats run no program: their steps have
				// none, so those outcomes cannot occur.
				kept := os[:0]
				for _, o := range os {
					if len(o.r.Step.Programs) == 0 && !o.r.Runtime {
						kept = append(kept, o)
					}
				}
				os = kept
			}
			answers := make([][]byte, len(os))
			var all bytes.Buffer
			for i, o := range os {
				answers[i] = Feedback([]step.Result{o.r})
				if len(answers[i]) == 0 {
					t.Errorf("%s: no answer", o.name)
				}
				fmt.Fprintf(&all, "=== %s\n%s\n", o.name, answers[i])
			}
			for i := range os {
				for j := i + 1; j < len(os); j++ {
					if bytes.Equal(answers[i], answers[j]) {
						t.Errorf("%q and %q get the same answer:\n%s", os[i].name, os[j].name, answers[i])
					}
				}
			}
			golden.Check(t, "testdata/outcomes/"+d+".golden", all.Bytes())
		})
	}
}

// noPrograms are the formats whose steps never run a program.
var noPrograms = map[string]bool{"apply_patch": true, "udiff": true}
