package gitops

// Sessions: linked worktrees that autocoder makes for a command run with
// --worktree, each on its own work branch, so that the user's checkout
// (files, index, HEAD) is never touched and several sessions work side by
// side. Each linked worktree has its own git directory
// (<common>/worktrees/<name>), and with it its own private folder and its
// own autocoder lock (see Private): two sessions never wait for each
// other. Refs, objects and config are shared.
//
// Where they live: <common git dir>/autocoder/worktrees/<name>. Inside the
// git directory, a session's files are never in the user's `git status`
// (git does not look inside .git), nothing is left in the folder around
// the user's repository, and every clone's sessions are found in one
// place. git itself finds the session's repository from there: the
// session folder's own .git file comes first on git's upward search.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Session is one linked worktree of autocoder's.
type Session struct {
	Path   string // the worktree's top folder
	Branch string // its work branch, short ("autocoder/main-2"); "" when detached
	Head   Hash   // the commit it is on
	// Running: a command holds the session's lock (see SessionLock);
	// otherwise the session was kept for the user to look at.
	Running bool
	Holder  string // what the running command wrote into its lock
}

// sessionsDir is where AddSession makes worktrees.
func (r *Repo) sessionsDir() string {
	return filepath.Join(r.CommonDir, "autocoder", "worktrees")
}

// BranchTakenError is AddSession's branch already there: another session
// took the name first.
type BranchTakenError struct{ Branch string }

func (e *BranchTakenError) Error() string { return "branch " + e.Branch + " already exists" }

// AddSession makes a linked worktree on the new branch (a short name)
// made at commit start, named after the branch. The branch is made first,
// on its own and only if it does not exist (git update-ref with an empty
// old value), so that two sessions starting together never share one: the
// loser gets a *BranchTakenError and picks the next name. (git worktree
// add -b makes its branch before it checks the folder, and leaves it
// behind when the rest fails.) When the worktree cannot be made, the
// branch is taken back: nothing is left.
func (r *Repo) AddSession(ctx context.Context, branch string, start Hash) (string, error) {
	if err := CheckBranchName(branch); err != nil {
		return "", err
	}
	dir := r.sessionsDir()
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", err
	}
	ref := "refs/heads/" + branch
	if _, err := Git(ctx, r.Root, "update-ref", "-m", "autocoder: session", ref, start.String(), ""); err != nil {
		if r.BranchExists(branch) {
			return "", &BranchTakenError{Branch: branch}
		}
		return "", fmt.Errorf("make the branch %s: %w", branch, err)
	}
	path := filepath.Join(dir, strings.ReplaceAll(branch, "/", "-"))
	for try := 1; ; try++ {
		_, err := Git(ctx, r.Root, "worktree", "add", "--quiet", path, branch)
		if err == nil {
			return path, nil
		}
		// git worktree add reads the records of every other worktree,
		// and one that another session is making at that moment is half
		// written ("failed to read .git/worktrees/…/commondir", seen
		// with six sessions started at once): that passes, so it is
		// tried again, a few times. A folder in the way does not pass.
		if _, serr := os.Lstat(path); serr == nil || try == 5 {
			Git(ctx, r.Root, "update-ref", "-d", ref, start.String())
			return "", fmt.Errorf("make a worktree for %s: %w", branch, err)
		}
		time.Sleep(time.Duration(try) * 20 * time.Millisecond)
	}
}

// RemoveSession removes the session worktree at path as `git worktree
// remove` does, which refuses (and then nothing is removed) when the
// worktree holds changes or files git does not track: those need the
// user. Then it prunes git's records of worktrees that are gone.
func (r *Repo) RemoveSession(ctx context.Context, path string) error {
	if _, err := Git(ctx, r.Root, "worktree", "remove", path); err != nil {
		return err
	}
	_, err := Git(ctx, r.Root, "worktree", "prune")
	return err
}

// DropUnusedBranch deletes branch when it still points at start (a
// session that made no step): nothing of it is lost, and the next session
// made from the same place gets its name. Its config section (the start
// record, see SetBranchStart) goes with it.
func (r *Repo) DropUnusedBranch(ctx context.Context, branch string, start Hash) error {
	if _, err := Git(ctx, r.Root, "update-ref", "-d", "refs/heads/"+branch, start.String()); err != nil {
		return err
	}
	r.configSet("--remove-section", "branch."+branch)
	return nil
}

// SessionLock is the lock a command holds for the whole life of its
// session, in the session's private folder (beside, not the same as, the
// engine's lock, which an MCP session takes only during a call): Sessions
// says that a session whose lock is held is running.
func (p *Private) SessionLock() (*ProcessLock, error) {
	return p.lockNamed("session", "the session lock")
}

// Worktrees lists every worktree of the repository as `git worktree list`
// does: path, branch and commit, the main worktree first.
func (r *Repo) Worktrees(ctx context.Context) ([]Session, error) {
	out, err := Git(ctx, r.Root, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, err
	}
	var list []Session
	var cur *Session
	for _, f := range bytes.Split(out, []byte{0}) {
		line := string(f)
		switch {
		case strings.HasPrefix(line, "worktree "):
			list = append(list, Session{Path: filepath.FromSlash(strings.TrimPrefix(line, "worktree "))})
			cur = &list[len(list)-1]
		case cur == nil:
		case strings.HasPrefix(line, "HEAD ") && plumbing.IsHash(line[5:]):
			cur.Head = plumbing.NewHash(line[5:])
		case strings.HasPrefix(line, "branch "):
			cur.Branch = strings.TrimPrefix(strings.TrimPrefix(line, "branch "), "refs/heads/")
		}
	}
	return list, nil
}

// WorktreeOf is the top folder of the worktree that has branch (short
// name) checked out; false when none has.
func (r *Repo) WorktreeOf(ctx context.Context, branch string) (string, bool, error) {
	list, err := r.Worktrees(ctx)
	if err != nil {
		return "", false, err
	}
	for _, w := range list {
		if w.Branch == branch {
			return w.Path, true, nil
		}
	}
	return "", false, nil
}

// Sessions lists autocoder's session worktrees (those under the sessions
// folder), with whether a command is running in each.
func (r *Repo) Sessions(ctx context.Context) ([]Session, error) {
	list, err := r.Worktrees(ctx)
	if err != nil {
		return nil, err
	}
	dir := r.sessionsDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	var out []Session
	for _, w := range list {
		p := w.Path
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if filepath.Dir(p) != dir {
			continue
		}
		w.Running, w.Holder = sessionRunning(w.Path)
		out = append(out, w)
	}
	return out, nil
}

// sessionRunning tries the session's lock: held means a command runs
// there. A session whose git directory cannot be read runs nothing.
func sessionRunning(path string) (bool, string) {
	gitDir, err := readGitFile(filepath.Join(path, ".git"))
	if err != nil {
		return false, ""
	}
	p := &Private{dir: filepath.Join(gitDir, "autocoder")}
	if _, err := os.Stat(p.dir); err != nil {
		return false, ""
	}
	l, err := p.SessionLock()
	var held *LockHeldError
	if errors.As(err, &held) {
		return true, held.Holder
	}
	if err == nil {
		l.Unlock()
	}
	return false, ""
}
