package gitops_test

import (
	"errors"
	"testing"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
)

// A cherry-pick or revert of several commits whose first commit conflicted
// and was committed by hand has no CHERRY_PICK_HEAD or REVERT_HEAD any more,
// but git still has the sequence under way (sequencer/todo): still refused,
// named by the sequence's own verb.
func TestInProgressSequencer(t *testing.T) {
	t.Parallel()
	for _, verb := range []string{"cherry-pick", "revert"} {
		t.Run(verb, func(t *testing.T) {
			r := gittest.NewWithCommit(t, map[string]string{"f.txt": "base\n", "g.txt": "g\n"})
			r.Git("switch", "-q", "-c", "other")
			r.Write("f.txt", "theirs\n")
			r.Git("commit", "-q", "-am", "theirs f")
			r.Write("g.txt", "theirs g\n")
			r.Git("commit", "-q", "-am", "theirs g")
			r.Git("switch", "-q", "main")
			r.Write("f.txt", "mine\n")
			r.Git("commit", "-q", "-am", "mine f")
			if verb == "cherry-pick" {
				r.GitErr("cherry-pick", "other~1", "other")
			} else {
				r.Write("g.txt", "mine g\n")
				r.Git("commit", "-q", "-am", "mine g")
				r.Git("merge", "-q", "-s", "ours", "other", "-m", "merge")
				r.GitErr("revert", "--no-edit", "-m", "1", "HEAD", "HEAD~1")
			}
			// Resolve the first commit and commit it: the sequence goes on.
			r.Write("f.txt", "resolved\n")
			r.Write("g.txt", "resolved g\n")
			r.Git("add", "-A")
			r.Git("-c", "core.editor=true", "commit", "-q", "--no-edit")
			repo, err := gitops.Open(r.Dir)
			if err != nil {
				t.Fatal(err)
			}
			defer repo.Close()
			err = repo.InProgress()
			var ip *gitops.InProgressError
			if !errors.As(err, &ip) {
				t.Fatalf("InProgress = %v, want the %s sequence (status:\n%s)", err, verb, r.Git("status"))
			}
			if ip.State != verb || ip.Marker != "sequencer/todo" || step.ClassOf(err) != step.ClassRefused {
				t.Errorf("state %q (%s) class %v, want %q (sequencer/todo) refused", ip.State, ip.Marker, step.ClassOf(err), verb)
			}
			r.Git(verb, "--abort")
			if err := repo.InProgress(); err != nil {
				t.Errorf("after --abort: %v", err)
			}
		})
	}
}
