package txn_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// A transaction of its own (a session's call, an undo, a redo) writes the
// index before HEAD and the ref: a failure injected at any point of it,
// the points after that write included, leaves the repository as it was,
// the index too, with the user's staged work in the step's folder and
// elsewhere untouched, and the next engine finds nothing to recover.
func TestAFailureAtEveryPointOfATransactionOfItsOwnLeavesNothing(t *testing.T) {
	gittest.Isolate(t)
	for _, kind := range []string{"first", "second", "undo", "redo"} {
		t.Run(kind, func(t *testing.T) {
			for n := 1; ; n++ {
				if n > 100 {
					t.Fatal("the operation never got past its last failure point")
				}
				t.Setenv("AUTOCODER_TEST_FAIL_AT", "")
				g := gittest.NewWithCommit(t, map[string]string{"d/a.txt": "a\n", "d/s.txt": "s\n", "u.txt": "u\n"})
				g.Write("d/s.txt", "staged\n")
				g.Write("u.txt", "staged too\n")
				g.Git("add", "d/s.txt", "u.txt")
				opts := txn.Options{SplitIndex: true}
				if kind != "first" {
					e := open(t, g.Dir, opts)
					mustApply(t, e, mkStep("s1", write("d/a.txt", "one\n")))
					if kind == "redo" {
						if _, err := e.Undo(1); err != nil {
							t.Fatal(err)
						}
					}
					if err := e.Close(); err != nil {
						t.Fatal(err)
					}
				}
				before := g.Snapshot()
				t.Setenv("AUTOCODER_TEST_FAIL_AT", fmt.Sprint(n))
				e := open(t, g.Dir, opts)
				var err error
				switch kind {
				case "first", "second":
					r := e.Apply(context.Background(), mkStep("s2", write("d/a.txt", "two\n"), write("d/n.txt", "new\n")))
					if r.Status == step.StatusFailed {
						err = fmt.Errorf("%s", r.Error)
					}
				case "undo":
					_, err = e.Undo(1)
				case "redo":
					_, err = e.Redo()
				}
				if cerr := e.Close(); cerr != nil {
					t.Fatalf("point %d: close: %v", n, cerr)
				}
				if err == nil {
					if n < 4 {
						t.Fatalf("point %d: no failure injected", n)
					}
					if got := g.Git("--no-optional-locks", "status", "--porcelain"); got != "M  d/s.txt\nM  u.txt\n" {
						t.Fatalf("after the %s, git status:\n%s", kind, got)
					}
					g.Fsck()
					break
				}
				if !strings.Contains(err.Error(), "injected") {
					t.Fatalf("point %d: %v", n, err)
				}
				g.AssertRestored(before)
				if _, serr := os.Stat(filepath.Join(g.Dir, ".git", "autocoder", "journal.json")); serr == nil {
					t.Fatalf("point %d: the journal is left", n)
				}
				t.Setenv("AUTOCODER_TEST_FAIL_AT", "")
				open(t, g.Dir, opts).Close()
				g.AssertRestored(before)
				g.Fsck()
			}
		})
	}
}
