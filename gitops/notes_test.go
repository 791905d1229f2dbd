package gitops_test

import (
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// AddNote writes what `git notes --ref autocoder show` reads, on top of a
// note git itself wrote, replacing a commit's earlier note; git fsck is
// silent and the ref has a reflog line.
func TestNotesAsGitReadsThem(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	g.Write("b", "b\n")
	g.Git("add", "b")
	g.Git("commit", "-q", "-m", "second")
	first := plumbing.NewHash(strings.TrimSpace(g.Git("rev-parse", "HEAD~1")))
	second := plumbing.NewHash(strings.TrimSpace(g.Git("rev-parse", "HEAD")))
	g.Git("notes", "--ref", "autocoder", "add", "-m", "by git", "HEAD~1")

	r := openRepo(t, g.Dir)
	p, err := r.Private()
	if err != nil {
		t.Fatal(err)
	}
	who := gitops.Signature{Name: "T", Email: "t@example.com", When: time.Unix(1700000000, 0).UTC()}
	block := "#####--\n{\"type\": \"operate\"}\n--#####\n"
	if err := r.AddNote(gitops.NotesRef, second, []byte(block), who, p); err != nil {
		t.Fatal(err)
	}
	if got := g.Git("notes", "--ref", "autocoder", "show", "HEAD"); got != block {
		t.Errorf("git notes show HEAD = %q, want %q", got, block)
	}
	if got := g.Git("notes", "--ref", "autocoder", "show", "HEAD~1"); got != "by git\n" {
		t.Errorf("git's own note was lost: %q", got)
	}
	if err := r.AddNote(gitops.NotesRef, first, []byte("replaced\n"), who, p); err != nil {
		t.Fatal(err)
	}
	if got := g.Git("notes", "--ref", "autocoder", "show", "HEAD~1"); got != "replaced\n" {
		t.Errorf("the replaced note reads %q", got)
	}
	if n := len(strings.Fields(g.Git("notes", "--ref", "autocoder", "list"))); n != 4 {
		t.Errorf("git notes list has %d fields, want 2 notes", n)
	}
	if text, ok, err := r.Note(gitops.NotesRef, second); err != nil || !ok || string(text) != block {
		t.Errorf("Note: %q %v %v", text, ok, err)
	}
	if _, ok, _ := r.Note(gitops.NotesRef, plumbing.NewHash(strings.Repeat("ab", 20))); ok {
		t.Error("Note found a note of a commit that has none")
	}
	if log := g.Git("reflog", "show", "--format=%gs", gitops.NotesRef); !strings.Contains(log, "Notes added by 'autocoder'") {
		t.Errorf("reflog of the notes ref: %q", log)
	}
	g.Fsck()
}
