package gitops

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// A git that would run on (git cat-file --batch waits for the next name
// as long as its input is open, and the test keeps it open) ends when its
// context is cancelled: Wait returns, and the process is gone.
func TestGitStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	r := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := gitCommand(ctx, r.Dir, nil, "cat-file", "--batch-check")
	cmd.Stdin, cmd.Stdout = inR, outW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	// git answers a name: it is running, and waits for the next one.
	if _, err := inW.WriteString("HEAD\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.Contains(line, " commit ") {
		t.Fatalf("git cat-file answered %q, %v", line, err)
	}
	cancel()
	err = cmd.Wait()
	if err == nil || cmd.ProcessState.Success() {
		t.Fatalf("git ran on after its context was cancelled: %v", err)
	}
	// Git with a context already ended does not start git at all.
	if _, err := Git(ctx, r.Dir, "status"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Git with a cancelled context: %v, want context.Canceled", err)
	}
}

// git runs on the repository gitops reads, whatever the environment says:
// a hook's GIT_INDEX_FILE or a rebase's GIT_DIR would point it elsewhere.
func TestGitIgnoresRepositoryLocationEnv(t *testing.T) {
	r := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	other := gittest.New(t)
	t.Setenv("GIT_DIR", filepath.Join(other.Dir, ".git"))
	t.Setenv("GIT_WORK_TREE", other.Dir)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(t.TempDir(), "index"))
	out, err := Git(context.Background(), r.Dir, "rev-parse", "--absolute-git-dir")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), filepath.Join(r.Dir, ".git"); filepath.Clean(got) != want {
		t.Fatalf("git ran in %s, want %s", got, want)
	}
	// The index is the repository's own: a.txt is tracked and unchanged.
	rp, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	dirty, err := rp.Dirty()
	if err != nil || len(dirty) != 0 {
		t.Fatalf("Dirty = %q, %v; want a clean work tree", dirty, err)
	}
}
