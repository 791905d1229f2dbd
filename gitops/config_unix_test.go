//go:build unix

package gitops_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// TestTrustsExecutableBitAsGit: core.fileMode is read as git reads a
// boolean (no "=" is true; "", no, off and 0 are false), judged by git
// status: a file made executable is modified for git exactly where
// autocoder trusts the bit.
func TestTrustsExecutableBitAsGit(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"", " =", " = false", " = no", " = Off", " = 0", " = true", " = yes", " = 2"} {
		t.Run("filemode"+v, func(t *testing.T) {
			t.Parallel()
			g := gittest.NewWithCommit(t, map[string]string{"run.sh": "echo\n"})
			g.Git("config", "--unset-all", "core.fileMode")
			f, err := os.OpenFile(filepath.Join(g.Dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("[core]\n\tfileMode" + v + "\n")
			f.Close()
			os.Chmod(filepath.Join(g.Dir, "run.sh"), 0o755)
			gitTrusts := g.Git("status", "--porcelain") != ""
			if got := openRepo(t, g.Dir).TrustsExecutableBit(); got != gitTrusts {
				t.Errorf("TrustsExecutableBit %v; git status sees the bit: %v", got, gitTrusts)
			}
		})
	}
}
