//go:build unix

package txn_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/runner"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// A program that keeps running (a watcher, a generator) may write a
// .gitattributes after the steps of its turn read the rules: the turn's
// report (Live), which commits what it wrote, reads its files with the
// rules as git has them then, and each blob is what git makes of its file.
func TestLiveProgramsFilesAreReadWithTheRulesTheyLeft(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	progs, _ := runner.New(config.Settings{Config: config.Default()}, true)
	e := open(t, g.Dir, txn.Options{Programs: progs})
	// Two named pipes: the program writes its files when the test says
	// so, after the steps, and says when it has.
	marks := t.TempDir()
	goOn, wrote := filepath.Join(marks, "go"), filepath.Join(marks, "wrote")
	for _, p := range []string{goOn, wrote} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s1 := mkStep("s1", write("b.txt", "b\n"))
	s1.Programs = []step.Program{{Name: "gen", Live: true, Shell: true, Command: "read x < '" + goOn + "'; " +
		`printf '*.txt text\n' > .gitattributes; printf 'one\r\ntwo\r\n' > gen.txt; echo done > '` + wrote + `'; sleep 1000`}}
	// s2 reads the rules (none yet) after the program started.
	mustRun(t, e, s1, mkStep("s2", write("c.txt", "c\n")))
	if err := os.WriteFile(goOn, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(wrote); err != nil || string(b) != "done\n" {
		t.Fatalf("the program's word: %q %v", b, err)
	}
	out := e.Live(true, "stopped by the test.")
	if len(out) != 1 || out[0].ProgramCommit == "" {
		t.Fatalf("the live programs' report: %+v", out)
	}
	committedAsGitMakes(t, g, "gen.txt")
	g.AssertClean()
	g.Fsck()
}
