package axon

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/txn"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/feedback")

// plan is the response the feedback cases answer.
var plan = mkact("write_file", "a.txt\n", "A\n") + mkact("git_add", "a.txt\n") + mkact("git_commit", "Add a\n") +
	mkact("check_files_exist", "go.mod\n") +
	mkact("replace", "b.go\n", "x\n", "y\n") +
	mkact("frobnicate") +
	mkact("read_file", "notes.md\n") +
	mkact("run_command", "go test ./...\n")

// results pairs the plan's items with outcomes, in order.
func results(t *testing.T, outcomes ...txn.Result) []txn.Result {
	t.Helper()
	items := Parse([]byte(plan))
	if len(items) != len(outcomes) {
		t.Fatalf("plan has %d items, case has %d outcomes", len(items), len(outcomes))
	}
	var rs []txn.Result
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
		results func(t *testing.T) []txn.Result
	}{
		{"applied", func(t *testing.T) []txn.Result {
			return results(t,
				txn.Result{Status: txn.StatusApplied, Commit: hash, Ops: []txn.OpResult{
					{Kind: txn.OpWrite, Path: "a.txt", Status: txn.StatusApplied, Message: "created"}}},
				txn.Result{Status: txn.StatusApplied},
				txn.Result{Status: txn.StatusApplied, Commit: hash[:12], Ops: []txn.OpResult{
					{Kind: txn.OpReplace, Path: "b.go", Status: txn.StatusApplied,
						Replaces: []txn.ReplaceResult{{Index: 0, Tier: "indent", Matches: 1, StartLine: 3, EndLine: 3}}}}},
				txn.Result{Status: txn.StatusFailed, Code: 1},
				txn.Result{Status: txn.StatusRead, Ops: []txn.OpResult{
					{Kind: txn.OpRead, Path: "notes.md", Status: txn.StatusRead,
						Output: "# Notes\n\n~~~~~act\nwrite_file\n~~~~~~~\nno final newline"}}},
				txn.Result{Status: txn.StatusApplied, Programs: []txn.ProgramResult{
					{Name: "run_command", Status: "success", Stdout: "ok  \texample.com/x\t0.01s\n"}}},
			)
		}},
		{"check-failed", func(t *testing.T) []txn.Result {
			skipped := txn.Result{Status: txn.StatusSkipped}
			return results(t,
				txn.Result{Status: txn.StatusApplied, Commit: hash, Ops: []txn.OpResult{
					{Kind: txn.OpWrite, Path: "a.txt", Status: txn.StatusApplied}}},
				txn.Result{Status: txn.StatusFailed, Code: 3, Error: "check_files_exist: go.mod does not exist",
					Hint: "run the plan in the repository that holds go.mod"},
				skipped, txn.Result{Status: txn.StatusFailed, Code: 1}, skipped, skipped)
		}},
		{"replace-failed", func(t *testing.T) []txn.Result {
			return results(t,
				txn.Result{Status: txn.StatusUnchanged, Ops: []txn.OpResult{
					{Kind: txn.OpWrite, Path: "a.txt", Status: txn.StatusUnchanged, Message: "the file already holds this content"}}},
				txn.Result{Status: txn.StatusApplied},
				txn.Result{Status: txn.StatusFailed, Code: 1, Error: "replace b.go: the old text was not found",
					Ops: []txn.OpResult{{Kind: txn.OpReplace, Path: "b.go", Status: txn.StatusFailed,
						Error: "old text not found", Hint: "the nearest text is at line 7: \"x := 1\"; copy the old text from the file exactly"}}},
				txn.Result{Status: txn.StatusFailed, Code: 1},
				txn.Result{Status: txn.StatusSkipped},
				txn.Result{Status: txn.StatusFailed, Code: 1, Programs: []txn.ProgramResult{
					{Name: "run_command", Status: "failure", ReturnCode: 2, Stderr: "FAIL\n", Error: "exit status 2"}}},
			)
		}},
		{"dry-run", func(t *testing.T) []txn.Result {
			return results(t,
				txn.Result{Status: txn.StatusPlanned, Ops: []txn.OpResult{
					{Kind: txn.OpWrite, Path: "a.txt", Status: txn.StatusPlanned, Diff: "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+A\n"}}},
				txn.Result{Status: txn.StatusPlanned},
				txn.Result{Status: txn.StatusPlanned, Ops: []txn.OpResult{
					{Kind: txn.OpMove, Path: "b.go", To: "c.go", Status: txn.StatusPlanned}}},
				txn.Result{Status: txn.StatusFailed, Code: 1},
				txn.Result{Status: txn.StatusRead},
				txn.Result{Status: txn.StatusPlanned, Programs: []txn.ProgramResult{{Status: "refused", ReturnCode: -1,
					Error: "programs are off", Stderr: ""}}},
			)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs := c.results(t)
			got := Feedback(rs)
			checkData(t, got, rs)
			golden := filepath.Join("testdata", "feedback", c.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update creates it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("feedback differs from %s (go test -update rewrites it):\n got:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// checkData asserts that every output, diff and stream of the results comes
// back exactly (with a final newline) when the feedback is read as fenced
// blocks: no data can close its fence early or leak into the report.
func checkData(t *testing.T, fb []byte, rs []txn.Result) {
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
