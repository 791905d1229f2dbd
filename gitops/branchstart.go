package gitops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Where a work branch started is kept in the repository's config, in the
// branch's own section:
//
//	[branch "autocoder/main"]
//		autocoderStart = <commit HEAD was on when the branch was made>
//		autocoderFrom = refs/heads/main
//
// Why the config and not the branch's reflog or a ref of our own: a
// reflog expires (gc.reflogExpire) and is not written at all under
// core.logAllRefUpdates=false; a ref of our own would stay behind when the
// user renames the branch. git moves a branch's config section with
// `git branch -m` and removes it with `git branch -d`, so the record
// follows the branch and only the branch, for as long as it lives, and the
// user can read it with `git config --get-regexp autocoder`. It is
// written with `git config`, which takes config.lock as git does.

// SetBranchStart records that branch (a short name, "autocoder/main")
// started at commit start, made from the branch from ("refs/heads/main"; ""
// for a detached HEAD). fresh reports whether the branch had no config
// section before, so that DropBranchStart may remove it whole.
func (r *Repo) SetBranchStart(branch string, start Hash, from string) (fresh bool, err error) {
	// In-process (config.go), as `git config --get-regexp ^branch\.<branch>\.`
	// would answer: this is the first apply on a new work branch.
	some, known := r.config().hasKeyUnder(r, "branch."+branch+".")
	fresh = known && !some
	if err := r.configSet("branch."+branch+".autocoderStart", start.String()); err != nil {
		return fresh, fmt.Errorf("record where %s starts: %w", branch, err)
	}
	if from == "" {
		r.configSet("--unset", "branch."+branch+".autocoderFrom")
		return fresh, nil
	}
	if err := r.configSet("branch."+branch+".autocoderFrom", from); err != nil {
		return fresh, fmt.Errorf("record where %s starts: %w", branch, err)
	}
	return fresh, nil
}

// DropBranchStart takes back what SetBranchStart recorded for a branch
// that was never made (its first step failed): the whole section when
// SetBranchStart made it (fresh), else only its keys, so that .git/config
// is left as it was.
func (r *Repo) DropBranchStart(branch string, fresh bool) error {
	if fresh {
		return r.configSet("--remove-section", "branch."+branch)
	}
	r.configSet("--unset", "branch."+branch+".autocoderStart")
	r.configSet("--unset", "branch."+branch+".autocoderFrom")
	return nil
}

// BranchStart returns where branch started and the branch it was made
// from, as SetBranchStart recorded them; ok is false when nothing is
// recorded (a branch made by an older autocoder, or by hand).
func (r *Repo) BranchStart(branch string) (start Hash, from string, ok bool) {
	// Read in-process (every apply and undo asks; config.go): the last
	// value counts, as for git config --get.
	cfg := r.config()
	s, _, _ := cfg.value(r, "branch."+branch+".autocoderstart")
	from, _, _ = cfg.value(r, "branch."+branch+".autocoderfrom")
	s, from = strings.TrimSpace(s), strings.TrimSpace(from)
	if !plumbing.IsHash(s) {
		return ZeroHash, "", false
	}
	return plumbing.NewHash(s), from, true
}

// IsAncestor reports whether commit a is b or an ancestor of b.
func (r *Repo) IsAncestor(a, b Hash) (bool, error) {
	err := r.gitRun("merge-base", "--is-ancestor", a.String(), b.String())
	var ee *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &ee) && ee.ExitCode() == 1:
		return false, nil
	}
	return false, err
}

// Upstream returns the full name and tip of branch's upstream (what git
// calls branch@{upstream}); ok is false when it has none.
func (r *Repo) Upstream(branch string) (name string, tip Hash, ok bool) {
	out, err := r.gitOut("rev-parse", "--symbolic-full-name", "--verify", "--quiet", branch+"@{upstream}")
	name = strings.TrimSpace(out)
	if err != nil || name == "" {
		return "", ZeroHash, false
	}
	h, exists, err := r.ResolveRef(name)
	if err != nil || !exists {
		return "", ZeroHash, false
	}
	return name, h, true
}

// ResolveCommit returns the commit an abbreviated (or full) hash names,
// as git rev-parse resolves it; ok is false when it names none, or more
// than one object.
func (r *Repo) ResolveCommit(prefix string) (h Hash, ok bool) {
	for _, c := range prefix {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return ZeroHash, false
		}
	}
	out, err := r.gitOut("rev-parse", "--verify", "--quiet", "--end-of-options", prefix+"^{commit}")
	if err != nil {
		return ZeroHash, false
	}
	s := strings.TrimSpace(out)
	if !plumbing.IsHash(s) {
		return ZeroHash, false
	}
	return plumbing.NewHash(s), true
}

func (r *Repo) gitOut(args ...string) (string, error) {
	out, err := Git(context.Background(), r.Root, args...)
	return string(out), err
}

// configSet runs `git config` with args, waiting as for our own locks
// (retryLocked) while another process holds config.lock: git config
// refuses at once (exit 255), and two sessions starting side by side each
// record their branch's start there.
func (r *Repo) configSet(args ...string) error {
	lock := filepath.Join(r.CommonDir, "config.lock")
	defer r.forgetConfig()
	return retryLocked(lock, func() error {
		err := r.gitRun(append([]string{"config"}, args...)...)
		var ee *exec.ExitError
		var ge *gitError
		if errors.As(err, &ee) && ee.ExitCode() == 255 && errors.As(err, &ge) {
			// git's message says so (in English), or the lock is still
			// there to see (in any language).
			if _, serr := os.Stat(lock); serr == nil || strings.Contains(ge.stderr, "could not lock config file") {
				return fmt.Errorf("%w (%w)", err, os.ErrExist)
			}
		}
		return err
	})
}

func (r *Repo) gitRun(args ...string) error {
	_, err := r.gitOut(args...)
	return err
}
