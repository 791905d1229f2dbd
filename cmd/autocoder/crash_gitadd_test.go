package main

import (
	"fmt"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// While a killed call's index.lock is held (killed after its index was
// written into the lock: after it, after HEAD, after the ref), a git add
// of another path fails and changes nothing; once the next session has
// recovered, the same git add lands and stays staged through that
// session's next call.
func TestGitAddBesideAKilledCallFailsThenLands(t *testing.T) {
	t.Parallel()
	for _, point := range []int{3, 4, 5} {
		t.Run(fmt.Sprint(point), func(t *testing.T) {
			t.Parallel()
			g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "u.txt": "u\n"})
			killFirstWrite(t, g.Dir, point)
			before := g.Git("ls-files", "-s", "--debug")
			g.Write("u.txt", "staged\n")
			if out, err := g.GitErr("add", "u.txt"); err == nil {
				t.Fatalf("git add beside the held index.lock succeeded:\n%s", out)
			}
			if got := g.Git("ls-files", "-s", "--debug"); got != before {
				t.Fatalf("the failed git add changed the index:\n%s\nwas\n%s", got, before)
			}
			m := startMCP(t, g.Dir, nil)
			m.mustCall("fs_read", map[string]any{"path": "a.txt"})
			g.Git("add", "u.txt")
			m.mustCall("fs_write", map[string]any{"path": "b.txt", "mode": "overwrite", "content": "b\n"})
			if err := m.close(); err != nil {
				t.Fatal(err)
			}
			if got := g.Git("status", "--porcelain"); got != "M  u.txt\n" {
				t.Fatalf("git status:\n%s", got)
			}
			g.Fsck()
		})
	}
}
