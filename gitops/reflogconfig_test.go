package gitops_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops"
)

// A ref's reflog is created where git creates one, by
// core.logAllRefUpdates: unset or true, for branches, remote-tracking
// refs, notes and HEAD; "always", for every ref; false, for none. A reflog
// that exists is appended to whatever the setting. git is the judge: the
// same refs made by `git update-ref` beside ours, in the same repository.
func TestReflogsAreCreatedWhereCoreLogAllRefUpdatesSays(t *testing.T) {
	t.Parallel()
	for _, setting := range []string{"", "true", "false", "always", "0"} {
		t.Run("setting="+setting, func(t *testing.T) {
			t.Parallel()
			g, r, own, head, who := refRepo(t)
			if setting != "" {
				g.Git("config", "core.logAllRefUpdates", setting)
			}
			exists := func(ref string) bool {
				_, err := os.Stat(filepath.Join(g.Dir, ".git", "logs", filepath.FromSlash(ref)))
				return err == nil
			}
			for _, ref := range []string{"refs/heads/autocoder/%s", "refs/notes/%s", "refs/remotes/origin/%s", "refs/autocoder/%s", "refs/tags/%s"} {
				ours, theirs := strings.Replace(ref, "%s", "ours", 1), strings.Replace(ref, "%s", "git", 1)
				if err := r.UpdateRef(gitops.RefUpdate{Name: ours, New: head, Message: "made", Who: who}, own); err != nil {
					t.Fatal(err)
				}
				g.Git("update-ref", "-m", "made", theirs, head.String())
				if got, want := exists(ours), exists(theirs); got != want {
					t.Errorf("%s: a reflog %v, git's %s: %v", ours, got, theirs, want)
				}
			}
			// A reflog that exists is appended to, the branch's and HEAD's.
			branch := "refs/heads/autocoder/logged"
			g.Git("update-ref", "--create-reflog", "-m", "first", branch, head.String())
			g.Git("symbolic-ref", "HEAD", branch)
			if err := r.UpdateRef(gitops.RefUpdate{Name: branch, Old: head, New: head, Message: "second", Who: who, AlsoLogHEAD: true}, own); err != nil {
				t.Fatal(err)
			}
			if got := g.Git("reflog", "show", "--format=%gs", branch); got != "second\nfirst\n" {
				t.Errorf("the branch's reflog: %q", got)
			}
			if got := g.Git("reflog", "show", "--format=%gs", "-1", "HEAD"); got != "second\n" {
				t.Errorf("HEAD's reflog: %q", got)
			}
			g.Fsck()
		})
	}
}
