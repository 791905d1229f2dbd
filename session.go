package autocoder

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// Session is a worktree session (apply, run and mcp with --worktree): a
// linked worktree of the repository on a new work branch made from the
// user's HEAD, so that the user's checkout is never touched and several
// sessions run side by side. Open the engine in Dir.
type Session struct {
	Dir    string // the session's worktree
	Branch string // its work branch, without refs/heads/
	Origin string // the user's checkout it was made from

	repo  *gitops.Repo
	start gitops.Hash
	lock  *gitops.ProcessLock
}

// StartSession makes a session in the repository around dir, on branch
// (the --branch given, the work-branch prefix added when missing) or on
// the next free work-branch name. It holds the session's own lock (which
// says to ListSessions that it runs) until Finish. log hears where it
// runs.
func StartSession(ctx context.Context, dir, branch string, log io.Writer) (_ *Session, err error) {
	if dir == "" {
		dir = "."
	}
	repo, err := gitops.Open(dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			repo.Close()
		}
	}()
	s, err := config.Load(repo.Root, config.UserDirs())
	if err != nil {
		return nil, err
	}
	prefix := s.Apply.BranchPrefix
	if prefix == "" {
		prefix = config.DefaultBranchPrefix
	}
	head, err := repo.ReadHEAD()
	if err != nil {
		return nil, err
	}
	if head.Hash.IsZero() {
		return nil, &step.Error{C: step.ClassUsage, Msg: "--worktree needs a commit to start the session's branch from, and this repository has none yet",
			Fix: "make a first commit (git commit --allow-empty -m init), or run without --worktree"}
	}
	ctx = context.WithoutCancel(ctx) // the worktree is made and removed whole, even on Ctrl-C
	var name, path string
	for tries := 0; ; tries++ {
		name = txn.NewWorkBranch(repo, prefix, head)
		if branch != "" {
			name = branch
			if !strings.HasPrefix(branch, prefix) {
				name = prefix + branch
			}
		}
		path, err = repo.AddSession(ctx, name, head.Hash)
		if err == nil {
			break
		}
		// Another session took the name between our look and git's
		// write: the next name is free. A --branch that exists is the
		// user's to change.
		if branch != "" || !repo.BranchExists(name) || tries > 100 {
			return nil, &step.Error{C: step.ClassUsage, Msg: "cannot start a session: " + err.Error(),
				Fix: "choose another work branch with --branch, or look at git worktree list"}
		}
	}
	if _, err := repo.SetBranchStart(name, head.Hash, head.Branch); err != nil {
		repo.RemoveSession(ctx, path)
		repo.DropUnusedBranch(ctx, name, head.Hash)
		return nil, err
	}
	lock, err := sessionLock(path)
	if err != nil {
		repo.RemoveSession(ctx, path)
		repo.DropUnusedBranch(ctx, name, head.Hash)
		return nil, err
	}
	fmt.Fprintf(log, "autocoder: session on %s in %s\n", name, path)
	return &Session{Dir: path, Branch: name, Origin: repo.Root, repo: repo, start: head.Hash, lock: lock}, nil
}

// sessionLock takes the session's own lock (gitops.Private.SessionLock).
func sessionLock(path string) (*gitops.ProcessLock, error) {
	r, err := gitops.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	p, err := r.Private()
	if err != nil {
		return nil, err
	}
	return p.SessionLock()
}

// Finish ends the session: its worktree is removed and its branch stays
// for review; a session that made no step takes its branch away too. A
// worktree git will not remove (changes, untracked files) is kept, and log
// says where and how to remove it.
func (s *Session) Finish(ctx context.Context, log io.Writer) error {
	defer s.repo.Close()
	s.lock.Unlock()
	ctx = context.WithoutCancel(ctx)
	if err := s.repo.RemoveSession(ctx, s.Dir); err != nil {
		fmt.Fprintf(log, "autocoder: session kept in %s on %s: %v\n", s.Dir, s.Branch, err)
		fmt.Fprintf(log, "autocoder: hint: look at it (git -C %s status), then remove it with git worktree remove --force %s\n", s.Dir, s.Dir)
		return nil
	}
	tip, _, err := s.repo.ResolveRef("refs/heads/" + s.Branch)
	if err != nil {
		return err
	}
	if tip == s.start {
		if err := s.repo.DropUnusedBranch(ctx, s.Branch, s.start); err != nil {
			return err
		}
		fmt.Fprintf(log, "autocoder: session ended with no step; its worktree and branch %s are removed\n", s.Branch)
		return nil
	}
	fmt.Fprintf(log, "autocoder: session ended; branch %s stays for review (autocoder log --branch %s; from here, undo, redo and show take --branch too), its worktree is removed\n", s.Branch, s.Branch)
	return nil
}

// Records is where a session's `run` keeps its conversation: the user's
// checkout's private folder, which outlives the session's worktree and is
// where show --branch looks from.
func (s *Session) Records() (*gitops.Private, error) { return s.repo.Private() }

// ListSessions lists the worktree sessions of the repository around dir,
// running or kept.
func ListSessions(ctx context.Context, dir string) ([]gitops.Session, error) {
	repo, err := gitops.Open(dir)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	return repo.Sessions(ctx)
}
