package txn_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// Issue 18: `git gc --prune=now` beside an apply lost steps reported applied
// (8 of 40 in one run) and left refs/notes/autocoder naming a missing
// object: a prune that walked the refs before a step's ref moved removes
// the step's new loose objects, unreachable when it looked. Here gc runs in
// a loop while a run applies 40 steps, each with a note; every step
// reported applied must be on the branch with its note, and git fsck
// --strict must be clean. (gittest.Isolate sets the environment, so the
// test cannot run in parallel.)
func TestGCBesideARunLosesNothing(t *testing.T) {
	if testing.Short() {
		// Up to 25 git gc runs, each a handful of processes: a race
		// that costs more than most packages' tests. Under -short the
		// deterministic cases keep it covered: gc between calls and
		// between steps (session_test.go) and an object written again
		// kept from a prune (gitops' objects_test.go).
		t.Skip("git gc in a loop beside a run: slow; runs without -short")
	}
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	var items []step.Item
	for i := range 40 {
		s := mkStep(fmt.Sprintf("s%d", i), write(fmt.Sprintf("f%d/x%d.txt", i%5, i), strings.Repeat(fmt.Sprintf("line %d\n", i), 50)))
		s.Raw = fmt.Sprintf("block %d\n", i)
		items = append(items, step.Item{Step: s})
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	gcs := 0
	go func() {
		defer wg.Done()
		for gcs < 25 {
			select {
			case <-stop:
				return
			default:
			}
			cmd := exec.Command("git", "gc", "--prune=now", "--quiet")
			cmd.Dir = g.Dir
			cmd.Run()
			gcs++
		}
	}()
	results := e.Run(context.Background(), items, txn.RunOptions{})
	close(stop)
	wg.Wait()
	applied := 0
	for _, r := range results {
		if r.Status != step.StatusApplied {
			continue
		}
		applied++
		if out, err := exec.Command("git", "-C", g.Dir, "cat-file", "-e", r.Commit+"^{tree}").CombinedOutput(); err != nil {
			t.Errorf("step %s reported applied as %s, which is missing: %s", r.StepID, r.Commit, out)
			continue
		}
		if out, err := exec.Command("git", "-C", g.Dir, "merge-base", "--is-ancestor", r.Commit, "HEAD").CombinedOutput(); err != nil {
			t.Errorf("step %s (%s) is not on the branch: %s", r.StepID, r.Commit, out)
		}
		if got := g.Git("notes", "--ref", "autocoder", "show", r.Commit); got != r.Step.Raw {
			t.Errorf("step %s: note %q", r.StepID, got)
		}
	}
	t.Logf("%d of %d steps applied beside %d runs of git gc --prune=now", applied, len(items), gcs)
	if applied == 0 {
		t.Fatal("no step applied")
	}
	g.Git("fsck", "--strict", "--no-dangling")
	if _, _, err := (func() (gitops.Hash, bool, error) { r, _ := gitops.Open(g.Dir); return r.ResolveRef(gitops.NotesRef) })(); err != nil {
		t.Fatal(err)
	}
}
