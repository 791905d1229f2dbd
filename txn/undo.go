package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/autocoder/autocoder/gitops"
	"github.com/go-git/go-git/v5/plumbing"
)

// UndoRefusedError is an undo or redo that would lose work: a file of the
// step changed since the step, or there is nothing to take back.
type UndoRefusedError struct{ Why, Fix string }

func (e *UndoRefusedError) Error() string { return e.Why }

// Hint says what to do.
func (e *UndoRefusedError) Hint() string { return e.Fix }

// NothingError is an undo or redo with nothing to do (exit code 1).
type NothingError struct{ Why, Fix string }

func (e *NothingError) Error() string { return e.Why }

// Hint says what to do.
func (e *NothingError) Hint() string { return e.Fix }

// LogEntry is one step commit on the work branch.
type LogEntry struct {
	StepID  string `json:"step_id"`
	Commit  string `json:"commit"`
	Subject string `json:"subject"`
	Author  string `json:"author"`
	Date    string `json:"date"`
}

// Log lists the steps on the current work branch, newest first: the commits
// from the tip that carry the Autocoder-Step trailer.
func (e *Engine) Log() (branch string, entries []LogEntry, err error) {
	head, err := e.Repo.ReadHEAD()
	if err != nil {
		return "", nil, err
	}
	if err := e.onWorkBranch(head); err != nil {
		return "", nil, err
	}
	steps, err := e.steps(head.Hash, -1)
	for _, c := range steps {
		entries = append(entries, LogEntry{StepID: c.Trailer("Autocoder-Step"), Commit: c.Hash.String(), Subject: c.Subject(),
			Author: c.Author.Name + " <" + c.Author.Email + ">", Date: c.Author.When.Format("2006-01-02 15:04:05 -0700")})
	}
	return strings.TrimPrefix(head.Branch, "refs/heads/"), entries, err
}

func (e *Engine) onWorkBranch(head gitops.Head) error {
	if !strings.HasPrefix(head.Branch, "refs/heads/"+e.opts.BranchPrefix) {
		where := "a detached HEAD"
		if head.Branch != "" {
			where = "branch " + strings.TrimPrefix(head.Branch, "refs/heads/")
		}
		return &NothingError{Why: "not on a work branch: HEAD is on " + where,
			Fix: "switch to a work branch first: git branch --list '" + e.opts.BranchPrefix + "*' lists them"}
	}
	return nil
}

// steps returns up to n (n < 0: all) step commits from tip, newest first.
func (e *Engine) steps(tip gitops.Hash, n int) ([]*gitops.Commit, error) {
	var out []*gitops.Commit
	for h := tip; !h.IsZero() && n != 0; n-- {
		c, err := e.Repo.ReadCommit(h)
		if err != nil {
			return out, err
		}
		if c.Trailer("Autocoder-Step") == "" {
			break
		}
		out = append(out, c)
		if len(c.Parents) == 0 {
			break
		}
		h = c.Parents[0]
	}
	return out, nil
}

// Undo drops the newest n steps of the current work branch: their files go
// back to the state before them (worktree and index), the branch moves back,
// and the steps can be put back with Redo. It refuses when a file of those
// steps changed since, and touches no other file.
func (e *Engine) Undo(n int) ([]LogEntry, error) {
	defer e.Flush() // releases index.lock on the refusals too
	if err := e.Repo.InProgress(); err != nil {
		return nil, err
	}
	head, err := e.Repo.ReadHEAD()
	if err != nil {
		return nil, err
	}
	if err := e.onWorkBranch(head); err != nil {
		return nil, err
	}
	steps, err := e.steps(head.Hash, n)
	if err != nil {
		return nil, err
	}
	if len(steps) < n {
		if len(steps) == 0 {
			return nil, &NothingError{Why: "nothing to undo: the tip of " + strings.TrimPrefix(head.Branch, "refs/heads/") + " is not an autocoder step",
				Fix: "autocoder log lists the steps of this branch"}
		}
		return nil, &NothingError{Why: fmt.Sprintf("cannot undo %d steps: the branch has only %d", n, len(steps)),
			Fix: fmt.Sprintf("run autocoder undo %d", len(steps))}
	}
	oldest := steps[len(steps)-1]
	if len(oldest.Parents) == 0 {
		return nil, &UndoRefusedError{Why: "step " + oldest.Trailer("Autocoder-Step") + " is the first commit of the repository; there is no state before it to go back to",
			Fix: "undo fewer steps, or delete the branch with git"}
	}
	target := oldest.Parents[0]
	if err := e.moveBranch("undo", steps[0], head, target, oldest.Trailer("Autocoder-Step")); err != nil {
		return nil, err
	}
	if err := e.Flush(); err != nil {
		return nil, err
	}
	var undone []LogEntry
	stack := e.readRedo(head.Branch)
	for _, c := range steps {
		undone = append(undone, LogEntry{StepID: c.Trailer("Autocoder-Step"), Commit: c.Hash.String(), Subject: c.Subject()})
		stack = append(stack, c.Hash.String()) // the oldest undone ends on top
	}
	return undone, e.writeRedo(head.Branch, stack)
}

// Redo puts back the most recently undone step, if the branch is still
// where the undo left it.
func (e *Engine) Redo() (LogEntry, error) {
	defer e.Flush() // releases index.lock on the refusals too
	if err := e.Repo.InProgress(); err != nil {
		return LogEntry{}, err
	}
	head, err := e.Repo.ReadHEAD()
	if err != nil {
		return LogEntry{}, err
	}
	if err := e.onWorkBranch(head); err != nil {
		return LogEntry{}, err
	}
	stack := e.readRedo(head.Branch)
	nothing := &NothingError{Why: "nothing to redo", Fix: "redo puts back steps that autocoder undo took away, until a new apply"}
	if len(stack) == 0 {
		return LogEntry{}, nothing
	}
	if !plumbing.IsHash(stack[len(stack)-1]) {
		e.writeRedo(head.Branch, nil)
		return LogEntry{}, nothing
	}
	top := plumbing.NewHash(stack[len(stack)-1])
	c, err := e.Repo.ReadCommit(top)
	if err != nil || len(c.Parents) == 0 || c.Parents[0] != head.Hash {
		e.writeRedo(head.Branch, nil)
		return LogEntry{}, nothing
	}
	if err := e.moveBranch("redo", c, head, top, c.Trailer("Autocoder-Step")); err != nil {
		return LogEntry{}, err
	}
	if err := e.Flush(); err != nil {
		return LogEntry{}, err
	}
	return LogEntry{StepID: c.Trailer("Autocoder-Step"), Commit: c.Hash.String(), Subject: c.Subject()},
		e.writeRedo(head.Branch, stack[:len(stack)-1])
}

// moveBranch moves the current work branch from HEAD to target, bringing
// the files that differ between the two (and only those) along.
func (e *Engine) moveBranch(kind string, about *gitops.Commit, head gitops.Head, target gitops.Hash, stepID string) error {
	from, err := e.treeOf(head.Hash)
	if err != nil {
		return err
	}
	to, err := e.treeOf(target)
	if err != nil {
		return err
	}
	diff, err := e.Repo.DiffTrees(from, to)
	if err != nil {
		return err
	}
	w := &workspace{e: e, files: map[string]*file{}}
	var ch []pathChange
	for _, d := range diff {
		if _, err := w.get(d.Path); err != nil {
			return err
		}
		ch = append(ch, pathChange{Path: d.Path,
			Old: entry{Exists: d.From.Mode != 0, Mode: d.From.Mode, Hash: d.From.Hash},
			New: entry{Exists: d.To.Mode != 0, Mode: d.To.Mode, Hash: d.To.Hash}})
	}
	held, err := e.lockIndex()
	if err != nil {
		return err
	}
	if err := w.guard(ch, held.ix); err != nil {
		return &UndoRefusedError{Why: kind + " refused: " + err.Error() + " since step " + stepID,
			Fix: "the step's files changed after it was made; commit or stash your changes to them (git stash), or undo by hand with git revert"}
	}
	_, committer, err := e.identity()
	if err != nil {
		committer = e.recoveryIdentity()
	}
	p := &plan{Kind: kind, StepID: stepID, Ref: head.Branch, OldRef: head.Hash, NewRef: target,
		OldHEAD: head.Raw, NewHEAD: head.Raw, Paths: ch,
		Message: "autocoder " + kind + ": " + about.Subject(), who: committer}
	return e.execute(p, held)
}

func (e *Engine) redoFile(branch string) string {
	return e.priv.Path("redo/" + strings.ReplaceAll(strings.TrimPrefix(branch, "refs/heads/"), "/", "%"))
}

func (e *Engine) readRedo(branch string) []string {
	b, err := os.ReadFile(e.redoFile(branch))
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}

func (e *Engine) writeRedo(branch string, stack []string) error {
	p := e.redoFile(branch)
	if len(stack) == 0 {
		os.Remove(p)
		return nil
	}
	os.MkdirAll(filepath.Dir(p), 0o777)
	return os.WriteFile(p, []byte(strings.Join(stack, "\n")+"\n"), 0o666)
}

func (e *Engine) clearRedo(branch string) { os.Remove(e.redoFile(branch)) }

// rollbackTo takes back every step applied since start (--atomic): the
// files, the index entries, the branch, and HEAD as they were.
func (e *Engine) rollbackTo(start gitops.Head) error {
	head, err := e.Repo.ReadHEAD()
	if err != nil {
		return err
	}
	if head.Raw == start.Raw && head.Hash == start.Hash {
		return nil
	}
	from, err := e.treeOf(head.Hash)
	if err != nil {
		return err
	}
	to, err := e.treeOf(start.Hash)
	if err != nil {
		return err
	}
	diff, err := e.Repo.DiffTrees(from, to)
	if err != nil {
		return err
	}
	var ch []pathChange
	for _, d := range diff {
		ch = append(ch, pathChange{Path: d.Path,
			Old: entry{Exists: d.From.Mode != 0, Mode: d.From.Mode, Hash: d.From.Hash},
			New: entry{Exists: d.To.Mode != 0, Mode: d.To.Mode, Hash: d.To.Hash}})
	}
	newRef := start.Hash
	if head.Branch != start.Branch {
		newRef = gitops.ZeroHash // the run created the branch: delete it
	}
	p := &plan{Kind: "rollback", StepID: "--atomic", Ref: head.Branch, OldRef: head.Hash, NewRef: newRef,
		OldHEAD: head.Raw, NewHEAD: start.Raw, HeadFrom: head.Hash, HeadTo: start.Hash, Paths: ch, Message: "autocoder: --atomic rollback", who: e.recoveryIdentity()}
	return e.execute(p, nil)
}

func mkdirAll(p string) error { return os.MkdirAll(p, 0o777) }
