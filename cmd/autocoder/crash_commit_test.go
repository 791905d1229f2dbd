package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// An MCP session's first call, killed after it wrote the index and before
// HEAD moved to the new work branch, leaves its entries staged on the
// user's branch. The user who then commits (git commit, no -a) has moved
// on: the next session must leave that commit's files as they are, not
// put back the state before the call under it.
func TestAKilledFirstCallThenTheUsersCommitIsLeftAlone(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	cmd := exec.Command("autocoder", "mcp")
	cmd.Dir = g.Dir
	// Points: 1 after the journal, 2 after the file, 3 after the index.
	cmd.Env = append(os.Environ(), "AUTOCODER_TEST_CRASH_AT=3")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "crash", Version: "1"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "fs_write",
		Arguments: map[string]any{"path": "a.txt", "mode": "overwrite", "content": "call\n"}}); err == nil {
		t.Fatal("the session was not killed")
	}
	cs.Close()
	if got := g.Git("symbolic-ref", "HEAD"); got != "refs/heads/main\n" {
		t.Fatalf("HEAD moved before the kill: %s", got)
	}
	// git refuses while HEAD.lock is there, and says to remove it.
	if _, err := g.GitErr("commit", "-q", "-m", "the user's commit"); err == nil {
		t.Fatal("git committed beside HEAD.lock")
	}
	os.Remove(filepath.Join(g.Dir, ".git", "HEAD.lock"))
	g.Git("commit", "-q", "-m", "the user's commit")
	if got := g.Git("show", "HEAD:a.txt"); got != "call\n" {
		t.Fatalf("the user's commit holds %q", got)
	}
	m := startMCP(t, g.Dir, nil)
	m.mustCall("fs_read", map[string]any{"path": "a.txt"})
	if err := m.close(); err != nil {
		t.Fatal(err)
	}
	if got := g.Git("status", "--porcelain"); got != "" {
		t.Fatalf("after the next session, git status:\n%s", got)
	}
	if got := g.MustRead("a.txt"); !strings.HasPrefix(got, "call") {
		t.Fatalf("a.txt is %q", got)
	}
	g.Fsck()
}
