package axon

import (
	"github.com/autocoder/autocoder/internal/golden"
	"github.com/autocoder/autocoder/step"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/protocol/fence"
)

// plan is the response the feedback cases answer.
var plan = mkact("write_file", "a.txt\n", "A\n") + mkact("git_add", "a.txt\n") + mkact("git_commit", "Add a\n") +
	mkact("check_files_exist", "go.mod\n") +
	mkact("replace", "b.go\n", "x\n", "y\n") +
	mkact("delete_file") +
	mkact("read_file", "notes.md\n") +
	mkact("run_command", "go test ./...\n")

// results pairs the plan's items with outcomes, in order.
func results(t *testing.T, outcomes ...step.Result) []step.Result {
	t.Helper()
	items := Parse([]byte(plan))
	if len(items) != len(outcomes) {
		t.Fatalf("plan has %d items, case has %d outcomes", len(items), len(outcomes))
	}
	var rs []step.Result
	for i, it := range items {
		r := outcomes[i]
		r.Step, r.ParseErr = it.Step, it.Err
		if it.Step != nil {
			r.StepID = it.Step.ID
		}
		rs = append(rs, r)
	}
	return rs
}

func TestFeedback(t *testing.T) {
	const hash = "3f2a9c1d0e8b7a6f5e4d3c2b1a09f8e7d6c5b4a3"
	cases := []struct {
		name    string
		results func(t *testing.T) []step.Result
	}{
		{"applied", func(t *testing.T) []step.Result {
			return results(t,
				step.Result{Status: step.StatusApplied, Commit: hash, Ops: []step.OpResult{
					{Kind: step.OpWrite, Path: "a.txt", Status: step.StatusApplied, Message: "created"}}},
				step.Result{Status: step.StatusApplied},
				step.Result{Status: step.StatusApplied, Commit: hash[:12], Ops: []step.OpResult{
					{Kind: step.OpReplace, Path: "b.go", Status: step.StatusApplied,
						Replaces: []step.ReplaceResult{{Index: 0, Tier: "indent", Matches: 1, StartLine: 3, EndLine: 3}}}}},
				step.Result{Status: step.StatusFailed, Class: step.ClassStepFailed},
				step.Result{Status: step.StatusRead, Ops: []step.OpResult{
					{Kind: step.OpRead, Path: "notes.md", Status: step.StatusRead,
						Output: "# Notes\n\n~~~~~act\nwrite_file\n~~~~~~~\nno final newline"}}},
				step.Result{Status: step.StatusApplied, Programs: []step.ProgramResult{
					{Name: "run_command", Status: "success", Stdout: "ok  \texample.com/x\t0.01s\n", Runtime: 0.75}}},
			)
		}},
		{"check-failed", func(t *testing.T) []step.Result {
			skipped := step.Result{Status: step.StatusSkipped}
			return results(t,
				step.Result{Status: step.StatusApplied, Commit: hash, Ops: []step.OpResult{
					{Kind: step.OpWrite, Path: "a.txt", Status: step.StatusApplied}}},
				step.Result{Status: step.StatusFailed, Class: step.ClassPrecondition, Error: "check_files_exist: go.mod does not exist",
					Hint: "run the plan in the repository that holds go.mod"},
				skipped, step.Result{Status: step.StatusFailed, Class: step.ClassStepFailed}, skipped, skipped)
		}},
		{"replace-failed", func(t *testing.T) []step.Result {
			return results(t,
				step.Result{Status: step.StatusUnchanged, Ops: []step.OpResult{
					{Kind: step.OpWrite, Path: "a.txt", Status: step.StatusUnchanged, Message: "the file already holds this content"}}},
				step.Result{Status: step.StatusApplied},
				step.Result{Status: step.StatusFailed, Class: step.ClassStepFailed, Error: "replace b.go: the old text was not found",
					Ops: []step.OpResult{{Kind: step.OpReplace, Path: "b.go", Status: step.StatusFailed,
						Error: "old text not found", Hint: "the nearest text is at line 7: \"x := 1\"; copy the old text from the file exactly"},
						{Kind: step.OpWrite, Path: "c.go", Status: step.StatusSkipped, Message: "not attempted: an earlier operation of this step failed"}}},
				step.Result{Status: step.StatusFailed, Class: step.ClassStepFailed},
				step.Result{Status: step.StatusSkipped, Ops: []step.OpResult{
					{Kind: step.OpWrite, Path: "d.go", Status: step.StatusSkipped, Message: "not attempted: an earlier step failed"}},
					Programs: []step.ProgramResult{{Name: "run_command", Status: step.ProgramNotAttempted, ReturnCode: -1,
						Error: "not attempted: an earlier step failed"}}},
				step.Result{Status: step.StatusFailed, Class: step.ClassStepFailed, Programs: []step.ProgramResult{
					{Name: "run_command", Status: "failure", ReturnCode: 2, Stderr: "FAIL\n", Error: "exit status 2", Runtime: 12.25}}},
			)
		}},
		{"dry-run", func(t *testing.T) []step.Result {
			return results(t,
				step.Result{Status: step.StatusPlanned, Ops: []step.OpResult{
					{Kind: step.OpWrite, Path: "a.txt", Status: step.StatusPlanned, Diff: "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+A\n"}}},
				step.Result{Status: step.StatusPlanned},
				step.Result{Status: step.StatusPlanned, Ops: []step.OpResult{
					{Kind: step.OpMove, Path: "b.go", To: "c.go", Status: step.StatusPlanned}}},
				step.Result{Status: step.StatusFailed, Class: step.ClassStepFailed},
				step.Result{Status: step.StatusRead},
				step.Result{Status: step.StatusPlanned, Programs: []step.ProgramResult{{Status: "refused", ReturnCode: -1,
					Error: "programs are off", Stderr: ""}}},
			)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs := c.results(t)
			got := Feedback(rs)
			checkData(t, got, rs)
			golden.Check(t, filepath.Join("testdata", "feedback", c.name+".txt"), got)
		})
	}
}

// checkData asserts that every output, diff and stream of the results comes
// back exactly (with a final newline) when the feedback is read as fenced
// blocks: no data can close its fence early or leak into the report.
func checkData(t *testing.T, fb []byte, rs []step.Result) {
	t.Helper()
	var want []string
	for _, r := range rs {
		for _, op := range r.Ops {
			for _, d := range []string{op.Output, op.Diff} {
				if d != "" {
					want = append(want, strings.TrimSuffix(d, "\n")+"\n")
				}
			}
		}
		for _, p := range r.Programs {
			for _, d := range []string{p.Stdout, p.Stderr} {
				if d != "" {
					want = append(want, strings.TrimSuffix(d, "\n")+"\n")
				}
			}
		}
	}
	blocks := fence.Scan(fb)
	if len(blocks) != len(want) {
		t.Fatalf("feedback has %d fenced blocks, want %d", len(blocks), len(want))
	}
	for i, b := range blocks {
		if string(b.Content) != want[i] || !b.Closed {
			t.Errorf("block %d holds %q, want %q", i, b.Content, want[i])
		}
	}
}

func TestFeedbackEmpty(t *testing.T) {
	if got := string(Feedback(nil)); got != "Axon plan: 0 steps.\n" {
		t.Errorf("Feedback(nil) = %q", got)
	}
}
