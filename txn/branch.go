package txn

import (
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
)

// BranchError is a --branch that cannot be used.
type BranchError struct{ Name, Why, Fix string }

func (e *BranchError) Error() string { return "work branch " + e.Name + ": " + e.Why }

// Hint says what to do.
func (e *BranchError) Hint() string { return e.Fix }

// Class is usage: the --branch given cannot be used.
func (e *BranchError) Class() step.Class { return step.ClassUsage }

func checkBranchName(name string) error {
	if gitops.CheckBranchName(name) != nil {
		return &BranchError{Name: name, Why: "not a valid branch name",
			Fix: "use letters, digits, '-', '_' and '/' (see git check-ref-format)"}
	}
	return nil
}

// workBase is what a work branch made from head is named after: its
// branch, or "detached-" and the commit's first 8 digits.
func workBase(head gitops.Head) string {
	if head.Detached() {
		return "detached-" + head.Hash.String()[:8]
	}
	return strings.TrimPrefix(head.Branch, "refs/heads/")
}

// workBranchName is the name of the nth work branch made from base:
// prefix+base, then prefix+base-2, prefix+base-3, …
func workBranchName(prefix, base string, n int) string {
	if n == 1 {
		return prefix + base
	}
	return fmt.Sprintf("%s%s-%d", prefix, base, n)
}

// WorkBranchesFrom lists the work branches apply made from base (see
// workBase), oldest first, as long as they follow on from one another.
func (e *Engine) WorkBranchesFrom(base string) []string {
	return workBranchesFrom(e.repo, e.opts.BranchPrefix, base)
}

func workBranchesFrom(repo *gitops.Repo, prefix, base string) []string {
	var names []string
	for n := 1; ; n++ {
		name := workBranchName(prefix, base, n)
		if !repo.BranchExists(name) {
			return names
		}
		names = append(names, name)
	}
}

// NewWorkBranch is the name a new work branch made from head gets, as
// apply names it (prefix+base, then base-2, base-3, …: the first free
// one), for a session's branch (autocoder apply --worktree). A session
// made from a work branch is named after that branch's base, not nested
// under the prefix twice.
func NewWorkBranch(repo *gitops.Repo, prefix string, head gitops.Head) string {
	base := strings.TrimPrefix(workBase(head), prefix)
	return workBranchName(prefix, base, len(workBranchesFrom(repo, prefix, base))+1)
}

// workBranch decides where a step's commit goes: on the current work
// branch, or on a new one created from HEAD (also a detached or unborn
// one). It returns the ref, its current value and what HEAD must say.
func (e *Engine) workBranch(head gitops.Head) (ref string, old gitops.Hash, newHEAD string, err error) {
	prefix := e.opts.BranchPrefix
	want := e.opts.Branch
	if want != "" && !strings.HasPrefix(want, prefix) {
		want = prefix + want
	}
	if strings.HasPrefix(head.Branch, "refs/heads/"+prefix) && (want == "" || head.Branch == "refs/heads/"+want) {
		return head.Branch, head.Hash, head.Raw, nil
	}
	if want == "" {
		base := workBase(head)
		want = workBranchName(prefix, base, len(e.WorkBranchesFrom(base))+1)
	}
	if err := checkBranchName(want); err != nil {
		return "", gitops.ZeroHash, "", err
	}
	ref = "refs/heads/" + want
	tip, exists, err := e.repo.ResolveRef(ref)
	if err != nil {
		return "", gitops.ZeroHash, "", err
	}
	if !exists {
		if err := e.refInTheWay(ref); err != nil {
			return "", gitops.ZeroHash, "", err
		}
	}
	if exists && tip != head.Hash {
		return "", gitops.ZeroHash, "", &BranchError{Name: want, Why: "it exists and points to " + tip.String()[:12] + ", not to HEAD",
			Fix: "switch to it first (git switch " + want + "), or choose a new name with --branch"}
	}
	return ref, tip, "ref: " + ref + "\n", nil
}
