package gitops_test

import (
	"os/exec"
	"testing"

	"github.com/autocoder/autocoder/gitops"
)

// git check-ref-format --branch is the judge of every name in the table.
func TestCheckBranchName(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"autocoder/main", true}, {"autocoder/feature-1", true}, {"a/b.c/d", true}, {"x@y", true}, {"a.lockx", true},
		{"bad..name", false}, {"a b", false}, {"a~1", false}, {"a^", false}, {"a:b", false}, {"a?", false},
		{"a*", false}, {"a[b", false}, {`a\b`, false}, {"a\x7f", false}, {"a\tb", false}, {"a@{1}", false},
		{"a//b", false}, {"a/.b", false}, {".a", false}, {"a.lock", false}, {"a.lock/b", false}, {"a.", false},
		{"/a", false}, {"a/", false}, {"-a", false}, {"", false},
	} {
		err := gitops.CheckBranchName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("CheckBranchName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
		if tc.name == "" {
			continue
		}
		cmd := exec.Command("git", "check-ref-format", "--branch", tc.name)
		cmd.Dir = dir // outside any repository: --branch expands nothing
		gitOK := cmd.Run() == nil
		if gitOK != tc.ok {
			t.Errorf("git check-ref-format --branch %q: ok=%v, the table says %v", tc.name, gitOK, tc.ok)
		}
	}
}
