package gitops

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// Taking back a reflog line (the ref's rename failed after its lines were
// written) cuts no line of another writer's. HEAD's reflog gets the line
// of a move of the branch HEAD is on without HEAD.lock, which git takes
// for it: a git checkout beside us appends its line under HEAD.lock, and
// the file cut to its size before ours lost the checkout's line too. Ours
// stays then, as git leaves one after a kill between line and rename;
// with no line after it, it goes.
func TestTakingBackAReflogLineCutsNoOtherWritersLine(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	r, err := Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	head := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	branch := strings.TrimSpace(g.Git("symbolic-ref", "HEAD"))
	headLog := filepath.Join(g.Dir, ".git", "logs", "HEAD")
	refLog := filepath.Join(g.Dir, ".git", "logs", filepath.FromSlash(branch))
	headBefore, _ := os.ReadFile(headLog)
	refBefore, _ := os.ReadFile(refLog)
	ours := head + " " + head + " T <t@example.com> 1700000000 +0000\tours\n"
	theirs := head + " " + head + " G <g@example.com> 1700000001 +0000\tcheckout: moving from a to b\n"
	failed := errors.New("rename failed")
	err = r.appendLogs([]string{branch, "HEAD"}, ours, func() error {
		f, err := os.OpenFile(headLog, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(theirs); err != nil {
			t.Fatal(err)
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("appendLogs: %v, want the move's failure", err)
	}
	if b, _ := os.ReadFile(headLog); string(b) != string(headBefore)+ours+theirs {
		t.Fatalf("HEAD's reflog:\n%s\nwant the other writer's line kept after ours", b)
	}
	if b, _ := os.ReadFile(refLog); string(b) != string(refBefore) {
		t.Fatalf("the ref's reflog, which no one else wrote, kept our line:\n%s", b)
	}
	if got := g.Git("reflog", "show", "--format=%gs", "-1", "HEAD"); got != "checkout: moving from a to b\n" {
		t.Fatalf("git reflog: %q", got)
	}
	g.Fsck()
}
