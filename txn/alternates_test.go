package txn_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/txn"
)

// Issue 18: a repository made with `git clone --shared` (or --reference)
// reads its objects through .git/objects/info/alternates, and autocoder
// failed with "object not found". Steps apply there; git fsck is clean and
// the clone's status too; the source repository is untouched.
func TestSharedCloneApplies(t *testing.T) {
	gittest.Isolate(t)
	src := gittest.NewWithCommit(t, map[string]string{"a.txt": "one\ntwo\n", "dir/b.txt": "b\n"})
	for _, how := range []string{"--shared", "--reference"} {
		t.Run(how, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "clone")
			args := []string{"clone", "-q", how, src.Dir, dir}
			if how == "--reference" {
				args = []string{"clone", "-q", "--reference", src.Dir, "file://" + src.Dir, dir}
			}
			if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
				t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			if _, err := os.Stat(filepath.Join(dir, ".git", "objects", "info", "alternates")); err != nil {
				t.Fatalf("the clone has no alternates: %v", err)
			}
			g := &gittest.Repo{T: t, Dir: dir}
			e := open(t, dir, txn.Options{})
			mustApply(t, e, mkStep("s1", replace("a.txt", "two\n", "three\n"), write("dir/c.txt", "c\n")))
			if got, _ := g.Read("a.txt"); got != "one\nthree\n" {
				t.Errorf("a.txt = %q", got)
			}
			if st := g.Git("status", "--porcelain"); st != "" {
				t.Errorf("status:\n%s", st)
			}
			g.Git("fsck", "--strict")
			if got := src.Git("log", "--all", "--format=%s"); got != "initial\n" {
				t.Errorf("the source repository changed:\n%s", got)
			}
		})
	}
}

// An alternates entry that does not name an object folder autocoder can
// read is refused when the repository is opened, naming the entry.
func TestUnreadableAlternatesAreNamed(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	alt := filepath.Join(g.Dir, ".git", "objects", "info", "alternates")
	os.MkdirAll(filepath.Dir(alt), 0o755)
	for _, entry := range []string{"../../other/objects", "/no/such/objects"} {
		os.WriteFile(alt, []byte(entry+"\n"), 0o644)
		_, err := gitops.Open(g.Dir)
		if err == nil || !strings.Contains(err.Error(), "alternates") || !strings.Contains(err.Error(), entry) {
			t.Errorf("alternates %q: err = %v, want a refusal naming the file and the entry", entry, err)
		}
	}
}
