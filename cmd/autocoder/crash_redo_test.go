package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// An undo or a redo killed past its commit point by an autocoder older
// than the journal's "redo" field (its journal has none) and finished by
// this one: redo until nothing is left must still end at the tip. The
// plan says what the move was (kind, old and new ref): an undo put the
// commits from the old ref down to the new on the stack, a redo took the
// new ref off its top.
func TestAnOldJournalOfUndoOrRedoFinishedKeepsTheRedoStack(t *testing.T) {
	if testing.Short() {
		t.Skip("kills undo and redo at each point past their commit point")
	}
	t.Parallel()
	for _, c := range []struct {
		name  string
		setup []string
		args  []string
	}{
		{"undo", nil, []string{"undo", "2"}},
		{"redo", []string{"undo", "2"}, []string{"redo"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tested := 0
			for n := 1; n < 60; n++ {
				g := crashRepoApplied(t)
				tip := g.tip
				if c.setup != nil {
					if out, err := autocoder(t, g.Dir, nil, c.setup...); err != nil {
						t.Fatalf("%v: %v\n%s", c.setup, err, out)
					}
				}
				before := g.Git("rev-parse", "HEAD")
				_, err := autocoder(t, g.Dir, []string{fmt.Sprintf("AUTOCODER_TEST_CRASH_AT=%d", n)}, c.args...)
				if !killed(err) {
					break
				}
				journal := filepath.Join(g.Dir, ".git", "autocoder", "journal.json")
				b, err := os.ReadFile(journal)
				if err != nil || g.Git("rev-parse", "HEAD") == before {
					continue // not past the commit point with a journal
				}
				// The journal an older autocoder wrote: no "redo".
				var p map[string]any
				if err := json.Unmarshal(b, &p); err != nil {
					t.Fatal(err)
				}
				delete(p, "redo")
				b, _ = json.Marshal(p)
				os.WriteFile(journal, b, 0o666)
				tested++
				if out, err := autocoder(t, g.Dir, nil, "log"); err != nil {
					t.Fatalf("point %d: log: %v\n%s", n, err, out)
				}
				if got := redoAll(t, g.Repo, fmt.Sprintf("point %d", n), "HEAD"); got != tip {
					t.Errorf("point %d: redo ends at %s, not at the tip %s: the %s finished from an old journal lost a step from the redo stack", n, strings.TrimSpace(got), strings.TrimSpace(tip), c.name)
				}
			}
			if tested == 0 {
				t.Fatal("no kill past the commit point left a journal")
			}
		})
	}
}

// `autocoder apply --atomic` after an undo, whose last step fails, killed
// during its rollback past the rollback's commit point: the next command
// finishes the rollback, and the branch is back where the run found it, so
// the redo stack must be as the run found it too ("--atomic: a failed run
// must leave even the redo stack as it was"); the step the run's first
// step cleared from it is lost for redo when the rollback's plan does not
// carry it.
func TestAnAtomicRollbackKilledAndFinishedLeavesTheRedoStackAsItWas(t *testing.T) {
	if testing.Short() {
		t.Skip("kills an --atomic run at each of its points")
	}
	t.Parallel()
	one := "~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nsrc/new/other.txt\n~~~~~\n~~~~~text\nother\n~~~~~\n"
	failing := one + "~~~~~act\nreplace\n~~~~~\n~~~~~path\nREADME.md\n~~~~~\n~~~~~markdown\nno such text\n~~~~~\n~~~~~markdown\nx\n~~~~~\n"
	tested := 0
	for n := 1; n < 80; n++ {
		g := crashRepoApplied(t)
		tip := g.tip
		if out, err := autocoder(t, g.Dir, nil, "undo"); err != nil {
			t.Fatalf("undo: %v\n%s", err, out)
		}
		undone := g.Git("rev-parse", "HEAD")
		atomic := filepath.Join(t.TempDir(), "atomic.md")
		os.WriteFile(atomic, []byte(failing), 0o666)
		_, err := autocoder(t, g.Dir, []string{fmt.Sprintf("AUTOCODER_TEST_CRASH_AT=%d", n)}, "apply", "--atomic", atomic)
		if !killed(err) {
			break
		}
		if out, err := autocoder(t, g.Dir, nil, "log"); err != nil {
			t.Fatalf("point %d: log: %v\n%s", n, err, out)
		}
		if g.Git("rev-parse", "HEAD") != undone {
			continue // the run's first step stands: nothing to redo is right
		}
		tested++
		if out, err := autocoder(t, g.Dir, nil, "redo"); err != nil {
			t.Errorf("point %d: the branch is where the run found it, but redo: %v\n%s", n, err, out)
			continue
		}
		if got := g.Git("rev-parse", "HEAD"); got != tip {
			t.Errorf("point %d: redo put back %s, not the undone step %s", n, got, tip)
		}
	}
	if tested == 0 {
		t.Fatal("no kill left the branch where the run found it")
	}
}

// An undo killed past its commit point (its ref moved, its journal kept)
// whose user then switched branches with git before the next autocoder
// command: recovery leaves the journal ("has moved since"), but the undo
// is committed, its ref where it takes it; the steps it took away must
// still be there for redo once the user is back on the branch.
func TestAnUndoKilledPastItsCommitPointThenLeftByGitSwitchKeepsTheRedoStack(t *testing.T) {
	if testing.Short() {
		t.Skip("kills undo at each point")
	}
	t.Parallel()
	tested := 0
	for n := 1; n < 60; n++ {
		g := crashRepoApplied(t)
		base, work, tip := g.base, g.work, g.tip
		_, err := autocoder(t, g.Dir, []string{fmt.Sprintf("AUTOCODER_TEST_CRASH_AT=%d", n)}, "undo", "2")
		if !killed(err) {
			break
		}
		if _, err := os.Stat(filepath.Join(g.Dir, ".git", "autocoder", "journal.json")); err != nil || g.Git("rev-parse", "HEAD") == tip {
			continue
		}
		if _, err := g.GitErr("switch", "-q", base); err != nil {
			continue // git's locks still held: the user cannot switch
		}
		tested++
		if out, err := autocoder(t, g.Dir, nil, "log", "--branch", work); err != nil {
			t.Fatalf("point %d: log: %v\n%s", n, err, out)
		}
		g.Git("switch", "-q", work)
		if got := redoAll(t, g.Repo, fmt.Sprintf("point %d", n), "HEAD"); got != tip {
			t.Errorf("point %d: redo ends at %s, not at the tip %s: the undo's steps are lost for redo", n, strings.TrimSpace(got), strings.TrimSpace(tip))
		}
	}
	if tested == 0 {
		t.Fatal("no kill past the commit point let the user switch")
	}
}

// An apply after an undo empties the redo stack ("until a new apply"); one
// killed past its commit point and finished by the next command must too.
// Else the stack still names the undone step, and once the branch is back
// at its parent (the user drops the new step with git reset --hard
// HEAD~1), redo puts back the step the apply replaced, which a whole apply
// followed by the same reset does not.
func TestAnApplyKilledPastItsCommitPointEmptiesTheRedoStack(t *testing.T) {
	if testing.Short() {
		t.Skip("kills apply at each point")
	}
	t.Parallel()
	one := "~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nsrc/new/other.txt\n~~~~~\n~~~~~text\nother\n~~~~~\n"
	tested := 0
	for n := 1; n < 60; n++ {
		g := crashRepoApplied(t)
		replaced := g.tip
		if out, err := autocoder(t, g.Dir, nil, "undo"); err != nil {
			t.Fatalf("undo: %v\n%s", err, out)
		}
		parent := g.Git("rev-parse", "HEAD")
		x := filepath.Join(t.TempDir(), "x.md")
		os.WriteFile(x, []byte(one), 0o666)
		_, err := autocoder(t, g.Dir, []string{fmt.Sprintf("AUTOCODER_TEST_CRASH_AT=%d", n)}, "apply", x)
		if !killed(err) {
			break
		}
		if out, err := autocoder(t, g.Dir, nil, "log"); err != nil {
			t.Fatalf("point %d: log: %v\n%s", n, err, out)
		}
		if g.Git("rev-parse", "HEAD") == parent {
			continue // the apply was taken back: the undone step is still redo's
		}
		tested++
		g.Git("reset", "-q", "--hard", "HEAD~1")
		out, err := autocoder(t, g.Dir, nil, "redo")
		if g.Git("rev-parse", "HEAD") == replaced {
			t.Errorf("point %d: redo put back the step the apply replaced (%v):\n%s", n, err, out)
		}
	}
	if tested == 0 {
		t.Fatal("no kill left the apply standing")
	}
}

// appliedRepo is crashRepo with crashPlan applied (crashRepoApplied): base
// is the branch HEAD was on, work the work branch it is on now, tip its
// commit as git rev-parse prints it.
type appliedRepo struct {
	*gittest.Repo
	base, work, tip string
}

func crashRepoApplied(t *testing.T) appliedRepo {
	t.Helper()
	g := appliedRepo{Repo: crashRepo(t)}
	g.base = strings.TrimSpace(g.Git("symbolic-ref", "--short", "HEAD"))
	plan := filepath.Join(t.TempDir(), "plan.md")
	os.WriteFile(plan, []byte(crashPlan), 0o666)
	if out, err := autocoder(t, g.Dir, nil, "apply", plan); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	g.work = strings.TrimSpace(g.Git("symbolic-ref", "--short", "HEAD"))
	g.tip = g.Git("rev-parse", "HEAD")
	return g
}

// crashRepoUndoneElsewhere is crashRepoApplied, then HEAD back on base and
// the work branch's newest step taken away by `undo --branch` from there:
// the branch is checked out nowhere, and its redo stack names the step.
func crashRepoUndoneElsewhere(t *testing.T) appliedRepo {
	t.Helper()
	g := crashRepoApplied(t)
	g.Git("switch", "-q", g.base)
	if out, err := autocoder(t, g.Dir, nil, "undo", "--branch", g.work); err != nil {
		t.Fatalf("undo --branch: %v\n%s", err, out)
	}
	return g
}
