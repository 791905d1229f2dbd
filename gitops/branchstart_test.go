package gitops_test

import (
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// BranchStart reads back what SetBranchStart recorded, and what git config
// says for the branch: the key's name in any case, the branch's exactly
// (a "." in it is a dot), the last of several values, nothing for a
// branch with no record.
func TestBranchStartAsRecorded(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	r := openRepo(t, g.Dir)
	head := plumbing.NewHash(strings.TrimSpace(g.Git("rev-parse", "HEAD")))
	const b = "autocoder/a.b+c"
	if _, _, ok := r.BranchStart(b); ok {
		t.Fatal("a start for a branch with no record")
	}
	fresh, err := r.SetBranchStart(b, head, "refs/heads/main")
	if err != nil || !fresh {
		t.Fatalf("SetBranchStart: fresh %v, %v", fresh, err)
	}
	if s, from, ok := r.BranchStart(b); !ok || s != head || from != "refs/heads/main" {
		t.Errorf("BranchStart = %s %q %v, want %s refs/heads/main", s, from, ok, head)
	}
	for _, other := range []string{"autocoder/aXb+c", "autocoder/a.b", "Autocoder/a.b+c"} {
		if _, _, ok := r.BranchStart(other); ok {
			t.Errorf("BranchStart(%q): the record of %s", other, b)
		}
	}
	g.Git("config", "--add", "branch."+b+".AutocoderFROM", "refs/heads/other")
	if _, from, _ := r.BranchStart(b); from != strings.TrimSpace(g.Git("config", "--get", "branch."+b+".autocoderFrom")) || from != "refs/heads/other" {
		t.Errorf("of two values: %q, want the last, as git config --get", from)
	}
	if _, err := r.SetBranchStart("autocoder/detached", head, ""); err != nil {
		t.Fatal(err)
	}
	if s, from, ok := r.BranchStart("autocoder/detached"); !ok || s != head || from != "" {
		t.Errorf("detached: %s %q %v", s, from, ok)
	}
	g.Git("config", "branch.autocoder/bad.autocoderStart", "not a commit")
	if _, _, ok := r.BranchStart("autocoder/bad"); ok {
		t.Error("a start that is no commit id")
	}
}

// SetBranchStart's fresh is whether the branch had a config section
// before, as `git config --get-regexp ^branch\.<name>\.` tells: a branch
// the user described is not fresh, and DropBranchStart leaves its
// description; one whose name differs in case only is another branch.
func TestBranchStartFresh(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	r := openRepo(t, g.Dir)
	head := plumbing.NewHash(strings.TrimSpace(g.Git("rev-parse", "HEAD")))
	g.Git("config", "branch.autocoder/Described.description", "the user's words")
	for _, c := range []struct {
		branch string
		fresh  bool
	}{{"autocoder/Described", false}, {"autocoder/described", true}, {"autocoder/new", true}} {
		_, gerr := g.GitErr("config", "--get-regexp", `^branch\.`+c.branch+`\.`)
		if gitFresh := gerr != nil; gitFresh != c.fresh {
			t.Fatalf("%s: git config --get-regexp says fresh %v, the case says %v", c.branch, gitFresh, c.fresh)
		}
		fresh, err := r.SetBranchStart(c.branch, head, "refs/heads/main")
		if err != nil || fresh != c.fresh {
			t.Errorf("%s: SetBranchStart fresh %v (%v), want %v", c.branch, fresh, err, c.fresh)
		}
		if err := r.DropBranchStart(c.branch, fresh); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.TrimSpace(g.Git("config", "--get", "branch.autocoder/Described.description")); got != "the user's words" {
		t.Errorf("the description after DropBranchStart: %q", got)
	}
	if out, _ := g.GitErr("config", "--get-regexp", `^branch\.autocoder/(described|new)\.`); out != "" {
		t.Errorf("sections left behind: %s", out)
	}
}
