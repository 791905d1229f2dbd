package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// `autocoder undo 2`, `autocoder redo` and the --atomic rollback of a run
// whose last step fails, killed at every point: these transactions hold
// the index they wrote in index.lock until HEAD and the ref moved (undo
// and redo, transactions of their own) or owe it (the rollback, inside
// the run). The next command leaves
// the branch at a whole step, the worktree and index at its tree apart
// from the user's own work, which is untouched, and fsck clean; so does
// a recovery of undo or redo that is itself killed at each of its points.
func TestCrashAtEveryPointOfUndoRedoAndRollback(t *testing.T) {
	if testing.Short() {
		t.Skip("kills undo, redo and an --atomic rollback at each of their points: slow; runs without -short")
	}
	t.Parallel()
	crashUndoRedo(t, false)
}

// The same for undo and redo on a split index whose every write makes a
// new shared index and expires the others at once (splitIndex.
// maxPercentChange=0, sharedIndexExpire=now): a kill after the new shared
// index was written, with index.lock linking to it and the index file to
// the old one, still leaves an index git reads.
func TestCrashAtEveryPointOfUndoRedoOnASplitIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("kills undo and redo at each of their points: slow; runs without -short")
	}
	t.Parallel()
	crashUndoRedo(t, true)
}

// crashUndoRedo is TestCrashAtEveryPointOfUndoRedoAndRollback; split
// makes the index split with a new shared index at every write, and leaves
// the --atomic rollback (a run's, which owes its index) out.
func crashUndoRedo(t *testing.T, split bool) {
	want := referenceTrees(t)
	failing := crashPlan + "~~~~~act\nreplace\n~~~~~\n~~~~~path\nREADME.md\n~~~~~\n~~~~~markdown\nno such text\n~~~~~\n~~~~~markdown\nx\n~~~~~\n"
	for _, c := range []struct {
		name  string
		setup []string
		args  func(plan string) []string
	}{
		{"undo", nil, func(string) []string { return []string{"undo", "2"} }},
		{"redo", []string{"undo", "2"}, func(string) []string { return []string{"redo"} }},
		{"atomic", nil, func(plan string) []string { return []string{"apply", "--atomic", plan} }},
	} {
		if split && c.name == "atomic" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			recoveriesKilled := 0
			for n := 1; ; n++ {
				if n > 200 {
					t.Fatal("never got past the last crash point")
				}
				g := crashRepoSplit(t, split)
				if split {
					g.Git("config", "splitIndex.maxPercentChange", "0")
					g.Git("config", "splitIndex.sharedIndexExpire", "now")
				}
				plan := filepath.Join(t.TempDir(), "plan.md")
				body := crashPlan
				if c.name == "atomic" {
					body = failing
				}
				os.WriteFile(plan, []byte(body), 0o666)
				if c.name != "atomic" {
					if out, err := autocoder(t, g.Dir, nil, "apply", plan); err != nil {
						t.Fatalf("apply: %v\n%s", err, out)
					}
				}
				tip := g.Git("rev-parse", "HEAD")
				if c.setup != nil {
					if out, err := autocoder(t, g.Dir, nil, c.setup...); err != nil {
						t.Fatalf("%v: %v\n%s", c.setup, err, out)
					}
				}
				userBefore := userState(g)
				out, err := autocoder(t, g.Dir, []string{fmt.Sprintf("AUTOCODER_TEST_CRASH_AT=%d", n)}, c.args(plan)...)
				if !killed(err) {
					if c.name == "atomic" && !strings.Contains(out, "took this one back") {
						t.Fatalf("point %d: %v\n%s", n, err, out)
					}
					if c.name != "atomic" && err != nil {
						t.Fatalf("point %d: %v\n%s", n, err, out)
					}
					if n < 3 {
						t.Fatalf("point %d: never killed", n)
					}
					checkConsistent(t, g, n, want, userBefore)
					if c.name != "atomic" && recoveriesKilled == 0 {
						t.Fatalf("no recovery of %s was killed", c.name)
					}
					t.Logf("killed %s at %d points, its recoveries %d times", c.name, n-1, recoveriesKilled)
					return
				}
				if c.name != "atomic" {
					// The recovery, a transaction of its own, killed at
					// each of its points in turn until one run of it ends.
					for m := 1; ; m++ {
						if m > 50 {
							t.Fatalf("point %d: the recovery never ended", n)
						}
						_, err := autocoder(t, g.Dir, []string{fmt.Sprintf("AUTOCODER_TEST_CRASH_AT=%d", m)}, "log")
						if !killed(err) {
							break
						}
						recoveriesKilled++
					}
				}
				if out, err := autocoder(t, g.Dir, nil, "log"); err != nil && !strings.Contains(out, "not on a work branch") {
					t.Fatalf("point %d: the next command failed: %v\n%s", n, err, out)
				}
				checkConsistent(t, g, n, want, userBefore)
				if c.name == "atomic" {
					continue
				}
				// What undo took away stays on the redo stack wherever it was
				// killed, as does what redo has not put back yet: redo until
				// there is nothing left brings the branch back to its tip.
				if got := redoAll(t, g, fmt.Sprintf("point %d", n), "HEAD"); got != tip {
					t.Fatalf("point %d: redo ends at %s, not at the tip %s the two steps made: the %s lost a step from the redo stack", n, strings.TrimSpace(got), strings.TrimSpace(tip), c.name)
				}
				checkConsistent(t, g, n, want, userBefore)
				// The branch is at a whole step: undo and redo go on from it.
				if out, err := autocoder(t, g.Dir, nil, "undo"); err != nil {
					t.Fatalf("point %d: undo after the crash: %v\n%s", n, err, out)
				}
				checkConsistent(t, g, n, want, userBefore)
			}
		})
	}
}

// redoAll runs `autocoder redo` (args: --branch and its name) until it has
// nothing left to put back, two steps at the most, and returns where ref
// is then; at names the crash point in failures.
func redoAll(t *testing.T, g *gittest.Repo, at, ref string, args ...string) string {
	t.Helper()
	for k := 0; ; k++ {
		out, err := autocoder(t, g.Dir, nil, append([]string{"redo"}, args...)...)
		if err != nil {
			if !strings.Contains(out, "nothing to redo") {
				t.Fatalf("%s: redo: %v\n%s", at, err, out)
			}
			return g.Git("rev-parse", ref)
		}
		if k == 2 {
			t.Fatalf("%s: redo put back a third step of two", at)
		}
	}
}
