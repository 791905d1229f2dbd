package txn_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/txn"
)

// fakePrograms allows what allow says and runs a Go function per command.
type fakePrograms struct {
	allow bool
	run   func(dir string, p step.Program)
}

func (f fakePrograms) Allowed(p step.Program) (bool, string) { return f.allow, "not on the allow list" }
func (f fakePrograms) Run(_ context.Context, dir string, p step.Program) step.ProgramResult {
	f.run(dir, p)
	return step.ProgramResult{Status: "success", Stdout: "ran " + p.Command}
}

func TestProgramOutputIsACommitOfItsOwn(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n", "mine.txt": "m\n", "gen.txt": "old\n"})
	g.Write("mine.txt", "the user's work\n")
	g.Write("untracked.txt", "u\n")
	e := open(t, g.Dir, txn.Options{Programs: fakePrograms{allow: true, run: func(dir string, p step.Program) {
		os.WriteFile(filepath.Join(dir, "build", "out.txt"), []byte("built\n"), 0o666)
		os.WriteFile(filepath.Join(dir, "gen.txt"), []byte("regenerated\n"), 0o666)
		os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("the program changed it\n"), 0o666)
	}}})
	s := mkStep("s", write("build/keep", "k\n"))
	s.Programs = []step.Program{{Name: "gen", Command: "make gen", Shell: true}}
	r := mustApply(t, e, s)
	if len(r.Programs) != 1 || r.Programs[0].Stdout != "ran make gen" || r.ProgramCommit == "" {
		t.Fatalf("programs %+v, program commit %q", r.Programs, r.ProgramCommit)
	}
	if !strings.Contains(r.Programs[0].Error, "mine.txt") {
		t.Fatalf("the result does not say that mine.txt was left alone: %q", r.Programs[0].Error)
	}
	if got := g.Git("show", "--name-only", "--format=%s", "HEAD"); got != "Record the files changed by make gen\n\nbuild/out.txt\ngen.txt\n" {
		t.Fatalf("the program commit:\n%s", got)
	}
	if got := g.Git("show", "--name-only", "--format=%s", "HEAD~1"); got != "Do s\n\nbuild/keep\n" {
		t.Fatalf("the step commit:\n%s", got)
	}
	if got := g.Status(); got != " M mine.txt\n?? untracked.txt\n" {
		t.Fatalf("status:\n%s", got)
	}
	g.Fsck()
	// Undo removes both.
	if _, err := e.Undo(2); err != nil {
		t.Fatal(err)
	}
	if _, ok := g.Read("build/out.txt"); ok {
		t.Fatal("undo left the program's output")
	}
}

// A program the policy does not allow is not run and is reported as
// refused, with what to do; the step's file operations still apply (they
// used to be refused with it: a model that asked to run the tests lost its
// edits too).
func TestRefusedProgramIsNotRunAndTheFilesApply(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	ran := false
	for i, opts := range []txn.Options{{}, {Programs: fakePrograms{allow: false, run: func(string, step.Program) { ran = true }}}} {
		e := open(t, g.Dir, opts)
		f := fmt.Sprintf("b%d", i)
		s := mkStep("s", write(f, "b\n"))
		s.Programs = []step.Program{{Name: "wipe", Command: "rm -rf /", Shell: true}}
		r := e.Apply(context.Background(), s)
		if r.Status != step.StatusApplied || r.Commit == "" {
			t.Fatalf("status %s (%s); want applied with a commit", r.Status, r.Error)
		}
		if len(r.Programs) != 1 || r.Programs[0].Status != step.ProgramRefused || r.Programs[0].Name != "wipe" ||
			!strings.Contains(r.Programs[0].Error, "refused to run") || !strings.Contains(r.Programs[0].Hint, "do not send it again") {
			t.Fatalf("program result %+v", r.Programs)
		}
		if step.ProgramTrouble([]step.Result{r}) == nil {
			t.Error("ProgramTrouble misses the refused program")
		}
		if g.MustRead(f) != "b\n" {
			t.Errorf("%s was not written", f)
		}
		g.AssertClean()
		e.Close()
	}
	if ran {
		t.Fatal("a refused program ran")
	}
}

func TestVerifyFailureRollsTheStepBack(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	saw := ""
	e := open(t, g.Dir, txn.Options{Verify: func(_ context.Context, root string) (string, error) {
		b, _ := os.ReadFile(filepath.Join(root, "a"))
		saw = string(b)
		return "a: syntax error on line 1\n", errors.New("exit code 1")
	}})
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("s", replace("a", "a", "broken")))
	if saw != "broken\n" {
		t.Fatalf("verify saw %q, want the step's files written", saw)
	}
	if r.Status != step.StatusFailed || !strings.Contains(r.Hint, "syntax error on line 1") {
		t.Fatalf("status %s hint %q", r.Status, r.Hint)
	}
	// The edit was done, then undone with the step: never reported applied.
	if len(r.Ops) != 1 || r.Ops[0].Status != step.StatusRolledBack || !strings.HasPrefix(r.Ops[0].Message, "rolled back, not applied") {
		t.Fatalf("ops %+v", r.Ops)
	}
	g.AssertRestored(before)
}
