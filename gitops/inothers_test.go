package gitops_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// InOthers names files that the engine removes and writes (the redo
// stacks a new apply empties, and --atomic's rollback writes back): never
// one reached through a symlink planted under .git/worktrees (whoever
// controls the repository's files controls those), as a worktree's
// folder, its autocoder folder or a folder inside that. Else an apply
// removes, and a rollback writes, a file outside the git directory.
func TestInOthersFollowsNoSymlink(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	r := openRepo(t, g.Dir)
	p, err := r.Private()
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	for _, d := range []string{"wt/autocoder/redo", "own/redo", "redo"} {
		if err := os.MkdirAll(filepath.Join(outside, filepath.FromSlash(d)), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	wts := filepath.Join(g.Dir, ".git", "worktrees")
	for _, d := range []string{"real/autocoder/redo", "own", "nested/autocoder"} {
		os.MkdirAll(filepath.Join(wts, filepath.FromSlash(d)), 0o777)
	}
	links := map[string]string{
		filepath.Join(wts, "evil"):                        filepath.Join(outside, "wt"),
		filepath.Join(wts, "own", "autocoder"):            filepath.Join(outside, "own"),
		filepath.Join(wts, "nested", "autocoder", "redo"): filepath.Join(outside, "redo"),
	}
	for link, to := range links {
		if err := os.Symlink(to, link); err != nil {
			t.Skip("no symlinks here:", err)
		}
	}
	realOutside, _ := filepath.EvalSymlinks(outside)
	got := p.InOthers("redo/autocoder%x")
	found := false
	for _, f := range got {
		dir, err := filepath.EvalSymlinks(filepath.Dir(f))
		if err != nil {
			continue
		}
		if strings.HasPrefix(dir, realOutside) {
			t.Errorf("InOthers names %s, which is %s, outside the git directory", f, filepath.Join(dir, filepath.Base(f)))
		}
		if strings.Contains(f, string(filepath.Separator)+"real"+string(filepath.Separator)) {
			found = true
		}
	}
	if !found {
		t.Errorf("InOthers left out the real worktree folder: %v", got)
	}
}
