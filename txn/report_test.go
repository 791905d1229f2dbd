package txn_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// TestExecuteReportsWhereTheWorkWent holds what a command prints about a
// run, decided by the engine: the work branch, the branch HEAD left, the
// work branch made from it before, the start commit; and nothing of the
// kind when the run stays on its work branch.
func TestExecuteReportsWhereTheWorkWent(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\n"})
	start := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	e := open(t, g.Dir, txn.Options{})
	items := []step.Item{{Step: mkStep("s1", write("b.txt", "b\n"))}}
	rep := e.Execute(context.Background(), items, txn.RunOptions{})
	if rep.Branch != "autocoder/main" || rep.From != "main" || rep.StartCommit != start[:12] || rep.Earlier != "" {
		t.Fatalf("first run: %+v", rep)
	}
	if got := strings.TrimSpace(g.Git("symbolic-ref", "--short", "HEAD")); got != rep.Branch {
		t.Fatalf("HEAD on %s, report says %s", got, rep.Branch)
	}
	rep = e.Execute(context.Background(), []step.Item{{Step: mkStep("s2", write("c.txt", "c\n"))}}, txn.RunOptions{})
	if rep.Branch != "autocoder/main" || rep.From != "" || rep.StartCommit != "" {
		t.Fatalf("a run on the work branch says it moved: %+v", rep)
	}
	// Back on main, a new run makes autocoder/main-2: the earlier one is named.
	g.Git("switch", "-q", "main")
	rep = e.Execute(context.Background(), []step.Item{{Step: mkStep("s3", write("d.txt", "d\n"))}}, txn.RunOptions{})
	if rep.Branch != "autocoder/main-2" || rep.From != "main" || rep.Earlier != "autocoder/main" {
		t.Fatalf("second work branch: %+v", rep)
	}
	if out := g.Git("status", "--porcelain"); out != "" {
		t.Fatalf("git status after the runs:\n%s", out)
	}
	g.Git("fsck", "--strict")
}

// TestExecuteDryRunWarnsOfARebase: a dry run plans during a rebase, and
// the report carries the warning that apply itself would be refused;
// nothing changes.
func TestExecuteDryRunWarnsOfARebase(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\n"})
	gitDir := strings.TrimSpace(g.Git("rev-parse", "--absolute-git-dir"))
	if err := os.MkdirAll(filepath.Join(gitDir, "rebase-merge"), 0o777); err != nil {
		t.Fatal(err)
	}
	head := g.Git("rev-parse", "HEAD")
	e := open(t, g.Dir, txn.Options{})
	rep := e.Execute(context.Background(), []step.Item{{Step: mkStep("s1", write("b.txt", "b\n"))}}, txn.RunOptions{DryRun: true})
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0].Msg, "rebase") || rep.Warnings[0].Hint == "" {
		t.Fatalf("warnings: %+v", rep.Warnings)
	}
	if !strings.Contains(rep.Patch, "b/b.txt") || rep.Results[0].Status != step.StatusPlanned {
		t.Fatalf("plan: %+v", rep)
	}
	if g.Git("rev-parse", "HEAD") != head || g.Git("status", "--porcelain") != "" {
		t.Fatal("a dry run changed the repository")
	}
}

// TestInteractiveDecidesThroughTheEngine holds apply -i's rules: each
// step's plan is shown before its question; apply, skip and quit do what
// they say; after quit and after an interrupted question nothing more is
// applied, and every skipped step says why.
func TestInteractiveDecidesThroughTheEngine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		answers []txn.Choice
		want    []step.Status
		files   []string // files that exist afterwards
		why     string   // the last result's error
	}{
		{"apply skip apply", []txn.Choice{txn.ChoiceApply, txn.ChoiceSkip, txn.ChoiceApply},
			[]step.Status{step.StatusApplied, step.StatusSkipped, step.StatusApplied}, []string{"s1.txt", "s3.txt"}, ""},
		{"quit", []txn.Choice{txn.ChoiceApply, txn.ChoiceQuit},
			[]step.Status{step.StatusApplied, step.StatusSkipped, step.StatusSkipped}, []string{"s1.txt"}, "not applied: you quit before this step"},
		{"interrupted", []txn.Choice{txn.ChoiceInterrupted},
			[]step.Status{step.StatusSkipped, step.StatusSkipped, step.StatusSkipped}, nil, "not applied: interrupted before this step"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\n"})
			e := open(t, g.Dir, txn.Options{})
			var items []step.Item
			for _, id := range []string{"s1", "s2", "s3"} {
				items = append(items, step.Item{Step: mkStep(id, write(id+".txt", id+"\n"))})
			}
			asked := 0
			rep := e.Interactive(context.Background(), items, func(plan txn.Report) txn.Choice {
				if want := items[asked].Step.ID; plan.Results[0].StepID != want || !strings.Contains(plan.Patch, want+".txt") {
					t.Errorf("question %d shows %+v, want the plan of %s", asked, plan, want)
				}
				asked++
				return c.answers[asked-1]
			}, "")
			if asked != len(c.answers) {
				t.Fatalf("asked %d questions, want %d", asked, len(c.answers))
			}
			for i, r := range rep.Results {
				if r.Status != c.want[i] {
					t.Errorf("step %d: %s, want %s (%s)", i+1, r.Status, c.want[i], r.Error)
				}
				if r.Status == step.StatusSkipped && r.Error == "" {
					t.Errorf("step %d skipped without saying why", i+1)
				}
			}
			if c.why != "" && rep.Results[2].Error != c.why {
				t.Errorf("last step: %q, want %q", rep.Results[2].Error, c.why)
			}
			for _, id := range []string{"s1", "s2", "s3"} {
				_, err := os.Stat(filepath.Join(g.Dir, id+".txt"))
				if want := strings.Contains(strings.Join(c.files, " "), id+".txt"); want != (err == nil) {
					t.Errorf("%s.txt exists: %v, want %v", id, err == nil, want)
				}
			}
			if out := g.Git("status", "--porcelain"); out != "" {
				t.Fatalf("git status:\n%s", out)
			}
		})
	}
}
