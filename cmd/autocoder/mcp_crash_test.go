package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// An MCP session killed (SIGKILL) at every point of its calls'
// transactions, with the spare files it makes between calls in use: the
// next session finishes or rolls back the call in flight, git finds the
// repository consistent (status clean, fsck silent), every commit's tree
// holds what its call wrote, and once that session ends nothing of
// autocoder's is left under .git (no lock, journal or spare file).
func TestMCPSessionKilledAtEveryPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("kills an MCP session at each of its crash points: slow; runs without -short")
	}
	t.Parallel()
	for k := 1; ; k++ {
		g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n", "d/e/c.txt": "c\n"})
		if !killedWriting(t, g.Dir, k, "a.txt", "d/b.txt", "d/e/c.txt", "a.txt") {
			if k < 4 {
				t.Fatalf("the session was never killed: AUTOCODER_TEST_CRASH_AT has no effect")
			}
			return // past the last point
		}

		// The next session recovers, then works.
		m := startMCP(t, g.Dir, nil)
		m.mustCall("fs_write", map[string]any{"path": "d/new.txt", "mode": "overwrite", "content": "after\n"})
		if err := m.close(); err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		if got := g.Git("status", "--porcelain"); got != "" {
			t.Fatalf("k=%d: git status after recovery:\n%s", k, got)
		}
		g.Fsck()
		// Each commit holds what its call wrote, in the one file it named.
		for _, c := range strings.Fields(g.Git("rev-list", "main..HEAD")) {
			paths := strings.Fields(g.Git("show", "--format=", "--name-only", c))
			if len(paths) != 1 {
				t.Fatalf("k=%d: commit %s changes %v", k, c, paths)
			}
			want := "call "
			if paths[0] == "d/new.txt" {
				want = "after\n"
			}
			if got := g.Git("show", c+":"+paths[0]); !strings.HasPrefix(got, want) {
				t.Fatalf("k=%d: commit %s holds %q in %s", k, c, got, paths[0])
			}
		}
		filepath.Walk(filepath.Join(g.Dir, ".git"), func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return nil
			}
			base := filepath.Base(p)
			if strings.HasSuffix(base, ".lock") || base == "journal.json" || base == "index-debt.json" ||
				strings.HasPrefix(base, "own-") || base == "spare" {
				t.Errorf("k=%d: %s was left behind", k, p)
			}
			return nil
		})
		if t.Failed() {
			return
		}
	}
}

// killedWriting has an MCP session in dir write "call <i>\n" into each of
// paths, call i, with AUTOCODER_TEST_CRASH_AT=k, and reports whether the
// session was killed (false: it has fewer crash points than k). Each call
// after the first waits for the spares the session makes between calls,
// so that it takes its files from them.
func killedWriting(t *testing.T, dir string, k int, paths ...string) bool {
	t.Helper()
	cmd := exec.Command("autocoder", "mcp")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), fmt.Sprintf("AUTOCODER_TEST_CRASH_AT=%d", k))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "crash", Version: "1"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i, p := range paths {
		if i > 0 {
			awaitSpares(t, dir)
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "fs_write",
			Arguments: map[string]any{"path": p, "mode": "overwrite", "content": fmt.Sprintf("call %d\n", i)}})
		if err != nil {
			return true
		}
		if res.IsError {
			t.Fatalf("k=%d: call %d: %s", k, i, resultText(res))
		}
	}
	return false
}

// awaitSpares waits until the session's spare folder holds the spare files
// it makes between calls (txn's spareFiles, 16). They are made by another
// process, which tells no one: the folder is looked at every millisecond
// (the test's timeout is the bound).
func awaitSpares(t *testing.T, repo string) {
	t.Helper()
	dir := filepath.Join(repo, ".git", "autocoder", "spare")
	for {
		ents, _ := os.ReadDir(dir)
		n := 0
		for _, e := range ents {
			if !strings.Contains(e.Name(), "-gone-") {
				n++
			}
		}
		if n >= 16 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
