package main

import (
	"context"
	"errors"
	"fmt"

	lib "github.com/autocoder/autocoder"

	"github.com/urfave/cli/v2"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/report"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// worktreeFlag is --worktree of apply, run and mcp.
func worktreeFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "worktree", Usage: "work in a linked worktree of its own, on a new work branch made from HEAD, " +
		"so that your checkout (files, index, HEAD) is never touched and several sessions run side by side; " +
		"the branch stays for review and the worktree is removed at the end (autocoder sessions lists them)"}
}

// sessionKey marks a command's context with the session it works in (see
// inWorktree): its folder, where openEngineWith opens the engine, and the
// user's checkout it was made from.
type sessionKey struct{}

type sessionAt struct{ dir, origin string }

// sessionDir is the session folder of c's command; false outside one.
func sessionDir(c *cli.Context) (string, bool) {
	if c.Context == nil {
		return "", false
	}
	s, ok := c.Context.Value(sessionKey{}).(sessionAt)
	return s.dir, ok
}

// recordsIn is the private folder where run keeps its conversation (and
// show finds a step's turn): the engine's, but in a session the user's
// checkout's, which outlives the session's worktree and is where
// show --branch looks from.
func recordsIn(c *cli.Context, e *gitops.Private) (*gitops.Private, error) {
	s, ok := c.Context.Value(sessionKey{}).(sessionAt)
	if !ok {
		return e, nil
	}
	r, err := gitops.Open(s.origin)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Private()
}

// inWorktree runs fn in a session of its own when --worktree is given (fn
// as it is otherwise): a linked worktree of the repository around dir, on
// a new work branch made from its HEAD (named as apply names one, or
// --branch). fn opens its engine there (openEngineWith) or serves there
// (the folder is fn's argument). When fn returns, the branch stays for
// review and the worktree is removed, unless it holds changes git would
// lose (then it is kept and its place said); a session that made no step
// takes its branch away too.
func inWorktree(c *cli.Context, dir string, fn func(dir string) error) (err error) {
	if !c.Bool("worktree") {
		return fn(dir)
	}
	if dir == "" {
		dir = "."
	}
	repo, err := gitops.Open(dir)
	if err != nil {
		return err
	}
	defer repo.Close()
	s, err := config.Load(repo.Root, config.UserDirs())
	if err != nil {
		return err
	}
	prefix := s.Apply.BranchPrefix
	if prefix == "" {
		prefix = config.DefaultBranchPrefix
	}
	head, err := repo.ReadHEAD()
	if err != nil {
		return err
	}
	if head.Hash.IsZero() {
		return &step.Error{C: step.ClassUsage, Msg: "--worktree needs a commit to start the session's branch from, and this repository has none yet",
			Fix: "make a first commit (git commit --allow-empty -m init), or run without --worktree"}
	}
	ctx := context.WithoutCancel(c.Context) // the worktree is made and removed whole, even on Ctrl-C
	var branch, path string
	for tries := 0; ; tries++ {
		branch = txn.NewWorkBranch(repo, prefix, head)
		if want := c.String("branch"); want != "" {
			branch = want
			if len(want) < len(prefix) || want[:len(prefix)] != prefix {
				branch = prefix + want
			}
		}
		path, err = repo.AddSession(ctx, branch, head.Hash)
		if err == nil {
			break
		}
		// Another session took the name between our look and git's
		// write: the next name is free. A --branch that exists is the
		// user's to change.
		if c.String("branch") != "" || !repo.BranchExists(branch) || tries > 100 {
			return &step.Error{C: step.ClassUsage, Msg: "cannot start a session: " + err.Error(),
				Fix: "choose another work branch with --branch, or look at git worktree list"}
		}
	}
	if _, err := repo.SetBranchStart(branch, head.Hash, head.Branch); err != nil {
		repo.RemoveSession(ctx, path)
		repo.DropUnusedBranch(ctx, branch, head.Hash)
		return err
	}
	lock, err := sessionLock(path)
	if err != nil {
		repo.RemoveSession(ctx, path)
		repo.DropUnusedBranch(ctx, branch, head.Hash)
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "autocoder: session on %s in %s\n", branch, path)
	c.Context = context.WithValue(c.Context, sessionKey{}, sessionAt{dir: path, origin: repo.Root})
	defer func() {
		lock.Unlock()
		if ferr := finishSession(c, repo, branch, path, head.Hash); ferr != nil {
			err = errors.Join(err, ferr)
		}
	}()
	return fn(path)
}

// sessionLock takes the session's own lock (gitops.Private.SessionLock),
// which says to autocoder sessions that it runs.
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

// finishSession removes a finished session's worktree, keeping its branch
// when it has steps; a worktree git will not remove (changes, untracked
// files) is kept and named, for the user.
func finishSession(c *cli.Context, repo *gitops.Repo, branch, path string, start gitops.Hash) error {
	ctx := context.WithoutCancel(c.Context)
	if err := repo.RemoveSession(ctx, path); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "autocoder: session kept in %s on %s: %v\n", path, branch, err)
		fmt.Fprintf(c.App.ErrWriter, "autocoder: hint: look at it (git -C %s status), then remove it with git worktree remove --force %s\n", path, path)
		return nil
	}
	tip, _, err := repo.ResolveRef("refs/heads/" + branch)
	if err != nil {
		return err
	}
	if tip == start {
		if err := repo.DropUnusedBranch(ctx, branch, start); err != nil {
			return err
		}
		fmt.Fprintf(c.App.ErrWriter, "autocoder: session ended with no step; its worktree and branch %s are removed\n", branch)
		return nil
	}
	fmt.Fprintf(c.App.ErrWriter, "autocoder: session ended; branch %s stays for review (autocoder log --branch %s; from here, undo, redo and show take --branch too), its worktree is removed\n", branch, branch)
	return nil
}

func sessionsCommand() *cli.Command {
	return &cli.Command{
		Name:  "sessions",
		Usage: "list the worktree sessions (apply, run and mcp with --worktree): running or kept, with their branches and folders",
		CustomHelpTemplate: examples(
			"autocoder sessions                  # state, branch, folder",
			"autocoder sessions --format json    # for a script",
			"autocoder log --branch BRANCH       # a session's steps, from your checkout",
		),
		Flags: []cli.Flag{formatFlag()},
		Action: func(c *cli.Context) error {
			f, err := format(c)
			if err != nil {
				return err
			}
			if c.NArg() > 0 {
				return &usageError{msg: "sessions takes no arguments", try: "Try: autocoder sessions"}
			}
			dir := c.String("C")
			if dir == "" {
				dir = "."
			}
			repo, err := gitops.Open(dir)
			if err != nil {
				return err
			}
			defer repo.Close()
			list, err := repo.Sessions(c.Context)
			if err != nil {
				return err
			}
			var out []report.Session
			for _, s := range list {
				state := report.SessionKept
				if s.Running {
					state = report.SessionRunning
				}
				out = append(out, report.Session{Branch: s.Branch, Path: s.Path, Commit: s.Head.String(), State: state, Holder: s.Holder})
			}
			if f == "json" {
				return report.SessionsJSON(c.App.Writer, out)
			}
			report.Sessions(c.App.Writer, out)
			return nil
		},
	}
}

// viewFlag is --branch of log, show, undo and redo.
func viewFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "branch", Usage: "the work branch `NAME` (autocoder/ is prepended when missing) instead of the one checked out here: " +
		"a session's (autocoder sessions lists them), also while it is checked out in another worktree or in none"}
}

// openView opens the engine of log, show, undo and redo: on --branch's
// work branch when given (txn.Engine.View). For undo and redo (move), a
// branch checked out in another worktree (a kept session's, a worktree of
// the user's) is moved there, with its files: the engine is opened in
// that worktree, under its lock.
func openView(c *cli.Context, move bool) (*lib.Engine, error) {
	e, err := openEngine(c, "")
	if err != nil || c.String("branch") == "" {
		return e, err
	}
	if err := e.View(c.String("branch")); err != nil {
		e.Close()
		return nil, err
	}
	wt, elsewhere := e.ViewWorktree()
	if !move || !elsewhere {
		return e, nil
	}
	if err := e.Close(); err != nil {
		return nil, err
	}
	return openEngineAt(c, wt, lib.Options{LockWait: commandLockWait})
}
