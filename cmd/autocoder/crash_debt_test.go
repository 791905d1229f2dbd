package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A killed apply (a run, whose steps owe their index entries to its end)
// leaves the index debt file; the MCP session that comes next writes the
// index within each call's transaction. The session settles the debt
// before its first call, and its call on a path the run owed ends with the
// index at HEAD's tree, the user's own work untouched and fsck clean.
func TestASessionAfterAKilledRunSettlesTheDebtFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("kills apply at each of its crash points: slow; runs without -short")
	}
	t.Parallel()
	owed := 0
	for n := 1; ; n++ {
		if n > 200 {
			t.Fatal("apply never got past its last crash point")
		}
		g := crashRepo(t)
		plan := filepath.Join(t.TempDir(), "plan.md")
		os.WriteFile(plan, []byte(crashPlan), 0o666)
		userBefore := userState(g)
		_, err := autocoder(t, g.Dir, []string{fmt.Sprintf("AUTOCODER_TEST_CRASH_AT=%d", n)}, "apply", plan)
		if !killed(err) {
			break
		}
		if _, err := os.Stat(filepath.Join(g.Dir, ".git", "autocoder", "index-debt.json")); err != nil {
			continue
		}
		owed++
		m := startMCP(t, g.Dir, nil)
		for _, p := range []string{"src/app.py", "README.md"} {
			m.mustCall("fs_write", map[string]any{"path": p, "mode": "overwrite", "content": "session\n"})
		}
		if err := m.close(); err != nil {
			t.Fatalf("point %d: %v", n, err)
		}
		if got := g.Git("--no-optional-locks", "status", "--porcelain", "--untracked-files=all"); got != " M user/dirty.txt\nM  user/staged.txt\n?? user/untracked.txt\n" {
			t.Fatalf("point %d: git status:\n%s", n, got)
		}
		if got := userState(g); got != userBefore {
			t.Fatalf("point %d: the user's work changed", n)
		}
		if got := g.Git("show", "HEAD:README.md", "HEAD:src/app.py"); got != "session\nsession\n" {
			t.Fatalf("point %d: HEAD holds %q", n, got)
		}
		if _, err := os.Stat(filepath.Join(g.Dir, ".git", "autocoder", "index-debt.json")); err == nil {
			t.Fatalf("point %d: the debt file is left", n)
		}
		g.Fsck()
	}
	if owed == 0 {
		t.Fatal("no kill left an index debt")
	}
	t.Logf("a session followed %d killed runs that owed index entries", owed)
}
