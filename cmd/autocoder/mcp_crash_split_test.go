package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// An MCP session killed at every point of its calls on a split index whose
// every write makes a new shared index and expires the old ones at once
// (splitIndex.maxPercentChange=0, sharedIndexExpire=now), with the user's
// staged work on another path: the next session ends whole, git reads
// the index (status shows only the user's staged file, fsck is silent),
// and no shared index the index links to is gone.
func TestMCPSessionKilledAtEveryPointOnASplitIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("kills an MCP session at each of its crash points: slow; runs without -short")
	}
	t.Parallel()
	for k := 1; ; k++ {
		g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n", "u.txt": "u\n"})
		g.Git("config", "splitIndex.maxPercentChange", "0")
		g.Git("config", "splitIndex.sharedIndexExpire", "now")
		g.Git("update-index", "--split-index")
		g.Write("u.txt", "staged\n")
		g.Git("add", "u.txt")
		if !killedWriting(t, g.Dir, k, "a.txt", "d/b.txt", "a.txt") {
			if k < 4 {
				t.Fatalf("the session was never killed: AUTOCODER_TEST_CRASH_AT has no effect")
			}
			return
		}
		m := startMCP(t, g.Dir, nil)
		m.mustCall("fs_write", map[string]any{"path": "d/new.txt", "mode": "overwrite", "content": "after\n"})
		if err := m.close(); err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		if got := g.Git("status", "--porcelain"); got != "M  u.txt\n" {
			t.Fatalf("k=%d: git status after recovery:\n%s", k, got)
		}
		g.Fsck()
		if got := g.Git("ls-files", "--stage", "d/new.txt"); !strings.Contains(got, "d/new.txt") {
			t.Fatalf("k=%d: the next session's file is not in the index: %q", k, got)
		}
		filepath.Walk(filepath.Join(g.Dir, ".git"), func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return nil
			}
			base := filepath.Base(p)
			if strings.HasSuffix(base, ".lock") || base == "journal.json" || strings.HasPrefix(base, "own-") {
				t.Errorf("k=%d: %s was left behind", k, p)
			}
			return nil
		})
		if t.Failed() {
			return
		}
	}
}
