package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An apply (a tool call of the MCP server is one) empties the branch's
// redo stacks in the other worktrees' folders: where no undo left one
// anywhere, it must not pay a system call per worktree for that, as the
// sessions of `autocoder apply --worktree` add worktrees by the hundred.
// Counted with strace: the second apply on a branch, in a repository
// with 30 linked worktrees that have run autocoder, touches a path under
// .git/worktrees a few times, not once or more per worktree.
func TestAnApplyDoesNotVisitEveryWorktree(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("no strace")
	}
	t.Parallel()
	g := crashRepo(t)
	const n = 30
	for i := 0; i < n; i++ {
		wt := filepath.Join(t.TempDir(), "w")
		g.Git("worktree", "add", "-q", "--detach", wt)
		if out, err := autocoder(t, wt, nil, "log"); err != nil && !strings.Contains(out, "not on a work branch") {
			t.Fatalf("log in a worktree: %v\n%s", err, out)
		}
	}
	write := func(name string) string {
		p := filepath.Join(t.TempDir(), name+".md")
		os.WriteFile(p, []byte("~~~~~act\nwrite_file\n~~~~~\n~~~~~path\n"+name+".txt\n~~~~~\n~~~~~text\nx\n~~~~~\n"), 0o666)
		return p
	}
	if out, err := autocoder(t, g.Dir, nil, "apply", write("x")); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	trace := filepath.Join(t.TempDir(), "trace")
	bin, err := exec.LookPath("autocoder")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(strace, "-f", "-o", trace, bin, "-C", g.Dir, "apply", write("y"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("apply under strace: %v\n%s", err, out)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var hits []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, string(filepath.Separator)+filepath.Join(".git", "worktrees")+string(filepath.Separator)) {
			hits = append(hits, l)
		}
	}
	if len(hits) >= n {
		t.Fatalf("an apply with no redo stack anywhere made %d system calls on the %d worktrees' folders:\n%s", len(hits), n, strings.Join(hits[:5], "\n"))
	}
}

// The stacks an autocoder older than the marks of clearOtherRedo wrote
// have none: a new apply empties them all the same.
func TestANewApplyEmptiesARedoStackWrittenWithoutItsMark(t *testing.T) {
	t.Parallel()
	g := crashRepoUndoneElsewhere(t)
	work, replaced := g.work, strings.TrimSpace(g.tip)
	os.RemoveAll(filepath.Join(g.Dir, ".git", "autocoder", "redo-kept")) // as an older autocoder left it
	other := filepath.Join(t.TempDir(), "other")
	g.Git("worktree", "add", "-q", other, work)
	x := filepath.Join(t.TempDir(), "x.md")
	os.WriteFile(x, []byte("~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nx.txt\n~~~~~\n~~~~~text\nx\n~~~~~\n"), 0o666)
	if out, err := autocoder(t, other, nil, "apply", x); err != nil {
		t.Fatalf("apply in the other worktree: %v\n%s", err, out)
	}
	if out, err := autocoder(t, other, nil, "undo"); err != nil {
		t.Fatalf("undo in the other worktree: %v\n%s", err, out)
	}
	g.Git("worktree", "remove", "--force", other)
	out, err := autocoder(t, g.Dir, nil, "redo", "--branch", work)
	if got := strings.TrimSpace(g.Git("rev-parse", work)); got == replaced {
		t.Fatalf("redo --branch put back the step the apply in the other worktree replaced (%v):\n%s", err, out)
	}
}
