package gitops_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops"
)

// A ref git makes no reflog for (core.logAllRefUpdates false; a ref
// outside branches, remote-tracking refs and notes where it is unset) is
// moved by git even where a folder of other reflogs stands at its
// reflog's name: log_ref_setup opens the file only to append, and takes
// EISDIR as ENOENT, "the logfile doesn't already exist". Ours must move
// too, and leave the folder as git does.
func TestARefWithoutAutocreatedReflogMovesPastAFolderAtItsReflog(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ setting, ref string }{
		{"false", "refs/heads/autocoder/%s"},
		{"", "refs/autocoder/%s"},
	} {
		t.Run("setting="+c.setting, func(t *testing.T) {
			t.Parallel()
			g, r, own, head, who := refRepo(t)
			if c.setting != "" {
				g.Git("config", "core.logAllRefUpdates", c.setting)
			}
			ours, theirs := strings.Replace(c.ref, "%s", "ours", 1), strings.Replace(c.ref, "%s", "git", 1)
			for _, ref := range []string{ours, theirs} {
				// The reflog of a ref inside it, whose ref is gone.
				dir := filepath.Join(g.Dir, ".git", "logs", filepath.FromSlash(ref))
				if err := os.MkdirAll(dir, 0o777); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "old"), []byte("x\n"), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			if out, err := g.GitErr("update-ref", "-m", "made", theirs, head.String()); err != nil {
				t.Fatalf("git update-ref refused too: %v\n%s", err, out)
			}
			if err := r.UpdateRef(gitops.RefUpdate{Name: ours, New: head, Message: "made", Who: who}, own); err != nil {
				t.Fatalf("git moves %s, we refuse: %v", theirs, err)
			}
			if _, err := os.Stat(filepath.Join(g.Dir, ".git", "logs", filepath.FromSlash(ours), "old")); err != nil {
				t.Fatalf("the folder of other reflogs is gone: %v", err)
			}
		})
	}
}
