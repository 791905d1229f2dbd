package main

import (
	"context"
	"errors"

	lib "github.com/autocoder/autocoder"

	"github.com/urfave/cli/v2"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/report"
)

// worktreeFlag is --worktree of apply, run and mcp.
func worktreeFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "worktree", Usage: "work in a linked worktree of its own, on a new work branch made from HEAD, " +
		"so that your checkout (files, index, HEAD) is never touched and several sessions run side by side; " +
		"the branch stays for review and the worktree is removed at the end (autocoder sessions lists them)"}
}

// sessionKey marks a command's context with the session it works in (see
// inWorktree): its folder is where openEngineWith opens the engine.
type sessionKey struct{}

// sessionDir is the session folder of c's command; false outside one.
func sessionDir(c *cli.Context) (string, bool) {
	if c.Context == nil {
		return "", false
	}
	s, ok := c.Context.Value(sessionKey{}).(*lib.Session)
	if !ok {
		return "", false
	}
	return s.Dir, true
}

// recordsIn is the private folder where run keeps its conversation (and
// show finds a step's turn): the engine's, but in a session the user's
// checkout's (lib.Session.Records).
func recordsIn(c *cli.Context, e *gitops.Private) (*gitops.Private, error) {
	s, ok := c.Context.Value(sessionKey{}).(*lib.Session)
	if !ok {
		return e, nil
	}
	return s.Records()
}

// inWorktree runs fn in a session of its own when --worktree is given (fn
// as it is otherwise): lib.StartSession in the repository around dir, on
// --branch or the next work branch. fn opens its engine there
// (openEngineWith) or serves there (the folder is fn's argument); then
// the session finishes (lib.Session.Finish).
func inWorktree(c *cli.Context, dir string, fn func(dir string) error) (err error) {
	if !c.Bool("worktree") {
		return fn(dir)
	}
	s, err := lib.StartSession(c.Context, dir, c.String("branch"), c.App.ErrWriter)
	if err != nil {
		return err
	}
	c.Context = context.WithValue(c.Context, sessionKey{}, s)
	defer func() {
		if ferr := s.Finish(c.Context, c.App.ErrWriter); ferr != nil {
			err = errors.Join(err, ferr)
		}
	}()
	return fn(s.Dir)
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
			list, err := lib.ListSessions(c.Context, dir)
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
