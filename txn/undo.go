package txn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
	"github.com/go-git/go-git/v5/plumbing"
)

// UndoRefusedError is an undo or redo that would lose work: a file of the
// step changed since the step, or there is nothing to take back.
type UndoRefusedError struct{ Why, Fix string }

func (e *UndoRefusedError) Error() string { return e.Why }

// Hint says what to do.
func (e *UndoRefusedError) Hint() string { return e.Fix }

// Class is refused: undo and redo never lose work.
func (e *UndoRefusedError) Class() step.Class { return step.ClassRefused }

// NothingError is an undo or redo with nothing to do (exit code 1).
type NothingError struct{ Why, Fix string }

func (e *NothingError) Error() string { return e.Why }

// Hint says what to do.
func (e *NothingError) Hint() string { return e.Fix }

// Class is step failed: there is nothing to undo or redo.
func (e *NothingError) Class() step.Class { return step.ClassStepFailed }

// LogEntry is one commit on the work branch (see step.LogEntry, where it
// lives so that report can write it without the engine).
type LogEntry = step.LogEntry

func logEntry(c *gitops.Commit) LogEntry {
	en := LogEntry{StepID: c.Trailer("Autocoder-Step"), Kind: "step", Commit: c.Hash.String(), Subject: c.Subject(),
		Author: c.Author.Name + " <" + c.Author.Email + ">", Date: c.Author.When.Format("2006-01-02 15:04:05 -0700")}
	if en.StepID == "" {
		en.Kind = "user"
	}
	return en
}

// Log lists the commits on the current work branch since it started,
// newest first: the steps, and any commit of the user's own among them.
func (e *Engine) Log() (branch string, entries []LogEntry, err error) {
	head, err := e.current()
	if err != nil {
		return "", nil, err
	}
	if err := e.onWorkBranch(head); err != nil {
		return "", nil, err
	}
	commits, err := e.history(head, -1)
	for _, c := range commits {
		entries = append(entries, logEntry(c))
	}
	return strings.TrimPrefix(head.Branch, "refs/heads/"), entries, err
}

func (e *Engine) onWorkBranch(head gitops.Head) error {
	if !strings.HasPrefix(head.Branch, "refs/heads/"+e.opts.BranchPrefix) {
		where := "HEAD is detached at " + head.Hash.String()[:12]
		if !head.Detached() {
			where = "HEAD is on branch " + workBase(head)
		}
		fix := "switch to a work branch first: git branch --list '" + e.opts.BranchPrefix + "*' lists them"
		// A user who went back to the branch apply started from (to look
		// around, or to merge) is told the way back to its work branch:
		// the newest that apply made from there (see workBranch's names).
		if made := e.WorkBranchesFrom(workBase(head)); len(made) > 0 {
			fix = "switch to the work branch made from here first: git switch " + made[len(made)-1]
		}
		return &NothingError{Why: "not on a work branch: " + where, Fix: fix}
	}
	return nil
}

// history returns up to n (n < 0: all) commits of the work branch head is
// on, newest first, along first parents, and never one at or below the
// point where the branch started (see gitops.SetBranchStart): after the
// branch was merged into its base and a new work branch made from there,
// the steps that are now the base's are not this branch's. A branch with no
// recorded start (made by hand or by an older autocoder), or whose start is
// no longer below its tip (rewritten by hand), falls back to the commits
// that carry the Autocoder-Step trailer.
func (e *Engine) history(head gitops.Head, n int) ([]*gitops.Commit, error) {
	start, _, known := e.repo.BranchStart(strings.TrimPrefix(head.Branch, "refs/heads/"))
	if known && !head.Hash.IsZero() {
		if below, err := e.repo.IsAncestor(start, head.Hash); err != nil || !below {
			known = false
		}
	}
	var out []*gitops.Commit
	for h := head.Hash; !h.IsZero() && n != 0; n-- {
		if known && h == start {
			break
		}
		c, err := e.repo.ReadCommit(h)
		if err != nil {
			return out, err
		}
		if !known && c.Trailer("Autocoder-Step") == "" {
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

// recordStart records where a work branch that a step is about to create
// (or to take over, when it already points at HEAD) starts: at HEAD. A
// start already recorded for an existing branch stays.
func (e *Engine) recordStart(ref string, head gitops.Head) error {
	name := strings.TrimPrefix(ref, "refs/heads/")
	if _, exists, err := e.repo.ResolveRef(ref); err == nil && exists {
		if _, _, known := e.repo.BranchStart(name); known {
			return nil
		}
	}
	fresh, err := e.repo.SetBranchStart(name, head.Hash, head.Branch)
	if e.startsMade == nil {
		e.startsMade = map[string]bool{}
	}
	if prev, ok := e.startsMade[name]; ok {
		fresh = prev // the first record made the section, or did not
	}
	e.startsMade[name] = fresh
	return err
}

// UndoOptions change what Undo refuses.
type UndoOptions struct {
	// Force undoes steps that the branch's upstream, or the branch it was
	// made from, already contains.
	Force bool
}

// Undo drops the newest n steps of the current work branch: their files go
// back to the state before them (worktree and index), the branch moves back,
// and the steps can be put back with Redo. It refuses when a file of those
// steps changed since, when one of them is a commit of the user's own, when
// it would reach past the point where the branch started, and (unless
// o.Force) when the branch's upstream or the branch it was made from
// already contains them; it touches no other file.
func (e *Engine) Undo(n int, o ...UndoOptions) ([]LogEntry, error) {
	var opt UndoOptions
	if len(o) > 0 {
		opt = o[0]
	}
	defer e.Flush() // releases index.lock on the refusals too
	if err := e.repo.InProgress(); err != nil {
		return nil, err
	}
	head, err := e.current()
	if err != nil {
		return nil, err
	}
	if err := e.onWorkBranch(head); err != nil {
		return nil, err
	}
	steps, err := e.history(head, n)
	if err != nil {
		return nil, err
	}
	branch := strings.TrimPrefix(head.Branch, "refs/heads/")
	for _, c := range steps {
		if c.Trailer("Autocoder-Step") == "" {
			short := c.Hash.String()[:12]
			return nil, &UndoRefusedError{Why: "undo refused: commit " + short + " (" + oneLine(c.Subject()) + ") is your own commit on " + branch + ", not an autocoder step; undo never drops it",
				Fix: "undo only the steps above it (autocoder log shows them), or take it back yourself with git revert " + short}
		}
	}
	if len(steps) < n {
		if len(steps) == 0 {
			return nil, &NothingError{Why: "nothing to undo: " + branch + " has no step since it started",
				Fix: "autocoder log lists the steps of this branch"}
		}
		return nil, &NothingError{Why: fmt.Sprintf("cannot undo %d steps: %s has only %d since it started", n, branch, len(steps)),
			Fix: fmt.Sprintf("run autocoder undo %d", len(steps))}
	}
	oldest := steps[len(steps)-1]
	if len(oldest.Parents) == 0 {
		return nil, &UndoRefusedError{Why: "step " + oldest.Trailer("Autocoder-Step") + " is the first commit of the repository; there is no state before it to go back to",
			Fix: "undo fewer steps, or delete the branch with git"}
	}
	if !opt.Force {
		if err := e.published(branch, oldest); err != nil {
			return nil, err
		}
	}
	target := oldest.Parents[0]
	var undone []LogEntry
	stack := e.readRedo(head.Branch)
	for _, c := range steps {
		undone = append(undone, logEntry(c))
		stack = append(stack, c.Hash.String()) // the oldest undone ends on top
	}
	if err := e.move("undo", steps[0], head, target, oldest.Trailer("Autocoder-Step"), stack); err != nil {
		return nil, err
	}
	return undone, e.Flush()
}

// Redo puts back the most recently undone step, if the branch is still
// where the undo left it.
func (e *Engine) Redo() (LogEntry, error) {
	defer e.Flush() // releases index.lock on the refusals too
	if err := e.repo.InProgress(); err != nil {
		return LogEntry{}, err
	}
	head, err := e.current()
	if err != nil {
		return LogEntry{}, err
	}
	if err := e.onWorkBranch(head); err != nil {
		return LogEntry{}, err
	}
	stack := e.readRedo(head.Branch)
	nothing := &NothingError{Why: "nothing to redo", Fix: "redo puts back steps that autocoder undo took away, until a new apply"}
	// The top step is put back where the branch is at its parent. Steps
	// on top that the branch has already are not undone: an undo --branch
	// killed between its stack and its ref (see move), a redo whose stack
	// could not be written (settleRedo). They go, and the step below is
	// the one to put back; any other top means the branch moved on since
	// the undo, and the stack goes.
	var onBranch map[string]bool
	var top gitops.Hash
	var c *gitops.Commit
	for {
		if len(stack) == 0 || !plumbing.IsHash(stack[len(stack)-1]) {
			e.writeRedo(head.Branch, nil)
			return LogEntry{}, nothing
		}
		top = plumbing.NewHash(stack[len(stack)-1])
		c, err = e.repo.ReadCommit(top)
		if err == nil && len(c.Parents) > 0 && c.Parents[0] == head.Hash {
			break
		}
		if onBranch == nil {
			onBranch = map[string]bool{}
			commits, _ := e.history(head, -1)
			for _, h := range commits {
				onBranch[h.Hash.String()] = true
			}
		}
		if !onBranch[top.String()] {
			e.writeRedo(head.Branch, nil)
			return LogEntry{}, nothing
		}
		stack = stack[:len(stack)-1]
	}
	if err := e.move("redo", c, head, top, c.Trailer("Autocoder-Step"), stack[:len(stack)-1]); err != nil {
		return LogEntry{}, err
	}
	return logEntry(c), e.Flush()
}

// published refuses an undo whose oldest step (and so every newer one)
// the branch's upstream or the branch it was made from already contains:
// moving the work branch back would not take the step out of there, and a
// pushed step would come back with the next pull.
func (e *Engine) published(branch string, oldest *gitops.Commit) error {
	var where []string
	if name, tip, ok := e.repo.Upstream(branch); ok {
		where = append(where, name+"\x00"+tip.String())
	}
	if _, from, ok := e.repo.BranchStart(branch); ok && from != "" {
		if tip, exists, err := e.repo.ResolveRef(from); err == nil && exists {
			where = append(where, from+"\x00"+tip.String())
		}
	}
	for _, w := range where {
		name, tip, _ := strings.Cut(w, "\x00")
		in, err := e.repo.IsAncestor(oldest.Hash, plumbing.NewHash(tip))
		if err != nil {
			return err
		}
		if in {
			short := strings.TrimPrefix(strings.TrimPrefix(name, "refs/heads/"), "refs/remotes/")
			return &UndoRefusedError{Why: "undo refused: step " + oldest.Trailer("Autocoder-Step") + " is already in " + short + "; moving " + branch + " back would not take it out of there",
				Fix: "take it back on " + short + " with git revert " + oldest.Hash.String()[:12] + ", or run autocoder undo --force to move " + branch + " back anyway"}
		}
	}
	return nil
}

// View makes Log (and so Show), Undo and Redo work on the work branch
// name (the prefix is added when missing) rather than the one HEAD is on:
// from the user's checkout on a session's branch (autocoder log --branch).
// A branch checked out in another worktree is undone there, not through
// View (see move).
func (e *Engine) View(name string) error {
	if !strings.HasPrefix(name, e.opts.BranchPrefix) {
		name = e.opts.BranchPrefix + name
	}
	if err := checkBranchName(name); err != nil {
		return err
	}
	_, ok, err := e.repo.ResolveRef("refs/heads/" + name)
	if err != nil {
		return err
	}
	if !ok {
		return &BranchError{Name: name, Why: "no such branch",
			Fix: "autocoder sessions and git branch --list '" + e.opts.BranchPrefix + "*' list the work branches"}
	}
	e.view = "refs/heads/" + name
	return nil
}

// ViewWorktree is the worktree that has the branch of View checked out,
// when that is another worktree than this one: undo and redo are run
// there (its files move with the branch).
func (e *Engine) ViewWorktree() (string, bool) {
	head, err := e.repo.ReadHEAD()
	if err != nil || e.view == "" || head.Branch == e.view {
		return "", false
	}
	wt, ok, err := e.repo.WorktreeOf(context.Background(), strings.TrimPrefix(e.view, "refs/heads/"))
	return wt, ok && err == nil
}

// current is the work branch Log, Undo and Redo work on: HEAD, or the
// branch of View (with no Raw: HEAD is not on it).
func (e *Engine) current() (gitops.Head, error) {
	head, err := e.repo.ReadHEAD()
	if err != nil || e.view == "" || head.Branch == e.view {
		return head, err
	}
	tip, _, err := e.repo.ResolveRef(e.view)
	return gitops.Head{Branch: e.view, Hash: tip}, err
}

// move moves the work branch head from its tip to target: with its files
// when HEAD is on it (moveBranch), the ref alone when no worktree has it
// checked out (View). One checked out in another worktree is refused:
// its files are there, and so is the lock of whoever works in it. redo is
// the branch's redo stack once the move is whole: the journal carries it,
// so that a move that a kill interrupted and the next command finished
// leaves what undo took away on the stack, as a whole one does.
func (e *Engine) move(kind string, about *gitops.Commit, head gitops.Head, target gitops.Hash, stepID string, redo []string) error {
	if head.Raw != "" {
		return e.moveBranch(kind, about, head, target, stepID, redo)
	}
	branch := strings.TrimPrefix(head.Branch, "refs/heads/")
	if wt, ok, err := e.repo.WorktreeOf(context.Background(), branch); err != nil {
		return err
	} else if ok {
		return &UndoRefusedError{Why: kind + " refused: " + branch + " is checked out in " + wt,
			Fix: "run it there: autocoder -C " + wt + " " + kind}
	}
	_, committer, err := e.identity()
	if err != nil {
		committer = e.recoveryIdentity()
	}
	// No journal here: the stack an undo makes (longer) is written before
	// the ref moves, the one a redo makes (shorter) after, so that a kill
	// between the two leaves on it at most steps the branch has (which
	// Redo drops), never loses one that is not on the branch. A stack that
	// cannot be written leaves the move standing with a warning, as
	// settleRedo does; one written for a move that then fails is put back
	// as it was.
	first := kind == "undo"
	var old []string
	var werr error
	if first {
		old = e.readRedo(head.Branch)
		werr = e.writeRedo(head.Branch, redo)
	}
	if err := e.repo.UpdateRef(gitops.RefUpdate{Name: head.Branch, Old: head.Hash, New: target,
		Message: "autocoder " + kind + ": " + about.Subject(), Who: committer}, e.priv); err != nil {
		if first && werr == nil {
			e.writeRedo(head.Branch, old)
		}
		return err
	}
	if !first {
		werr = e.writeRedo(head.Branch, redo)
	}
	if werr != nil {
		e.warnRedo(kind, stepID, head.Branch, werr)
	}
	return nil
}

// moveBranch moves the current work branch from HEAD to target, bringing
// the files that differ between the two (and only those) along.
func (e *Engine) moveBranch(kind string, about *gitops.Commit, head gitops.Head, target gitops.Hash, stepID string, redo []string) error {
	from, err := e.treeOf(head.Hash)
	if err != nil {
		return err
	}
	to, err := e.treeOf(target)
	if err != nil {
		return err
	}
	diff, err := e.repo.DiffTrees(from, to)
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
	if redo == nil {
		redo = []string{} // "redo": [] in the journal, not null (an old journal's)
	}
	held, err := e.lockIndex()
	if err != nil {
		return err
	}
	if err := w.guard(ch, held.ix); err != nil {
		fix := "commit or stash your changes to the step's files (git stash), then run autocoder " + kind + " again"
		var d *DirtyError
		if errors.As(err, &d) {
			fix = d.remedy("run autocoder " + kind + " again")
		}
		if kind == "undo" {
			fix += ", or undo by hand with git revert"
		}
		return &UndoRefusedError{Why: kind + " of step " + stepID + " refused: " + err.Error(), Fix: fix}
	}
	_, committer, err := e.identity()
	if err != nil {
		committer = e.recoveryIdentity()
	}
	p := &plan{Kind: kind, StepID: stepID, Ref: head.Branch, OldRef: head.Hash, NewRef: target,
		OldHEAD: head.Raw, NewHEAD: head.Raw, Paths: ch, Redo: &redo, // never null: see recoverRedo
		Message: "autocoder " + kind + ": " + about.Subject(), who: committer}
	return e.execute(p, held)
}

// redoFile is the branch's redo stack: in the folder every worktree
// reaches (the main worktree's own), not the one of the worktree that
// moved the branch, which goes with it (git worktree remove, a session's
// end) while the branch stays, and which another worktree that has the
// branch later, or the checkout's redo --branch, does not read.
func (e *Engine) redoFile(branch string) string { return e.priv.Common(e.redoName(branch)) }

// oldRedoFile is where an autocoder that kept the stack in the worktree's
// own folder wrote it: read where the stack is missing, removed once it
// is written (the same file in the main worktree).
func (e *Engine) oldRedoFile(branch string) string { return e.priv.Path(e.redoName(branch)) }

// redoName is the branch's stack file: '/' spelt '%', and a '%' of the
// name '~', which no branch name has, so that feat/x and feat%x differ.
func (e *Engine) redoName(branch string) string {
	return "redo/" + strings.NewReplacer("%", "~", "/", "%").Replace(strings.TrimPrefix(branch, "refs/heads/"))
}

func (e *Engine) readRedo(branch string) []string {
	b, err := os.ReadFile(e.redoFile(branch))
	if errors.Is(err, os.ErrNotExist) && e.oldRedoFile(branch) != e.redoFile(branch) {
		b, err = os.ReadFile(e.oldRedoFile(branch))
	}
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}

func (e *Engine) writeRedo(branch string, stack []string) error {
	p := e.redoFile(branch)
	if old := e.oldRedoFile(branch); old != p {
		os.Remove(old)
	}
	if len(stack) == 0 {
		os.Remove(p)
		return nil
	}
	if err := e.markKept(branch); err != nil {
		return err
	}
	os.MkdirAll(filepath.Dir(p), 0o777)
	f, err := gitops.OpenOwn(p, os.O_WRONLY|os.O_TRUNC)
	if err != nil {
		return err
	}
	_, err = f.WriteString(strings.Join(stack, "\n") + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// clearOtherRedo empties the branch's redo stack in the other worktrees'
// folders, once a new apply on it stands: the common one (redoFile, where
// this worktree is a linked one), and the linked worktrees' own, where an
// older autocoder kept the stack of the worktree that moved the branch.
// One left there would have redo put back a step the apply replaced, once
// the branch is back at its parent. It runs past the commit point of the
// first step of a run on the branch, before its journal goes (settleRedo),
// so that a kill anywhere later, or the recovery of one past that point,
// leaves none behind (--atomic saves them first: saveOtherRedo). The
// first step removes the mark, so the run's later steps look at it only.
//
// Only where the branch's mark says a stack of it may be kept somewhere
// (markKept): an apply, so every tool call of the MCP server, does not
// visit every worktree's folder where nothing was undone.
func (e *Engine) clearOtherRedo(branch string) {
	mark := e.keptMark(branch)
	if _, err := os.Lstat(mark); err != nil {
		if _, err := os.Lstat(filepath.Dir(mark)); err == nil {
			return
		}
		e.markAllKept() // stacks written before the marks were: each gets one
	}
	if _, err := os.Lstat(mark); err == nil {
		for _, p := range e.priv.InOthers(e.redoName(branch)) {
			os.Remove(p)
		}
		// This worktree's stack of the branch is empty too (settleRedo).
		os.Remove(mark)
	}
}

// keptMark is the branch's mark, in the folder every worktree reaches:
// a file that stands while a redo stack of the branch may be kept in any
// worktree's folder. writeRedo makes it before the stack, and an apply
// that emptied them all removes it (clearOtherRedo).
func (e *Engine) keptMark(branch string) string {
	return e.priv.Common("redo-kept/" + path.Base(e.redoName(branch)))
}

func (e *Engine) markKept(branch string) error {
	mark := e.keptMark(branch)
	if _, err := os.Lstat(mark); err == nil {
		return nil
	}
	os.MkdirAll(filepath.Dir(mark), 0o777)
	f, err := gitops.OpenOwn(mark, os.O_WRONLY)
	if err != nil {
		return err
	}
	return f.Close()
}

// markAllKept makes the mark of every stack in any worktree's folder, and
// so the marks' folder: the stacks an autocoder older than the marks wrote.
func (e *Engine) markAllKept() {
	dir := filepath.Dir(e.keptMark("x"))
	if err := os.MkdirAll(filepath.Dir(dir), 0o777); err != nil {
		return
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "redo-kept-")
	if err != nil {
		return
	}
	for _, d := range e.priv.Everywhere("redo") {
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			continue
		}
		ents, _ := os.ReadDir(d)
		for _, en := range ents {
			if en.Type().IsRegular() {
				if f, err := os.Create(filepath.Join(tmp, en.Name())); err == nil {
					f.Close()
				}
			}
		}
	}
	// The folder appears whole or not at all: a kill in between leaves a
	// temporary folder, and the next apply marks them all again.
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
	}
}

// saveOtherRedo reads the branch's redo stacks in the other worktrees'
// folders, for --atomic's rollback to write back (restoreOtherRedo): the
// run's first step emptied them.
func (e *Engine) saveOtherRedo(branch string) map[string][]byte {
	saved := map[string][]byte{}
	if branch == "" {
		return saved
	}
	for _, p := range e.priv.InOthers(e.redoName(branch)) {
		if b, err := os.ReadFile(p); err == nil {
			saved[p] = b
		}
	}
	return saved
}

func (e *Engine) restoreOtherRedo(branch string, saved map[string][]byte) {
	if len(saved) > 0 {
		e.markKept(branch)
	}
	for p, b := range saved {
		if f, err := gitops.OpenOwn(p, os.O_WRONLY|os.O_TRUNC); err == nil {
			f.Write(b)
			f.Close()
		}
	}
}

// settleRedo writes the redo stack of a plan that moved forward (undo,
// redo; apply and --atomic's rollback too, see plan.Redo): past the
// commit point and before the journal goes, so that the recovery of a
// killed move writes it too. The move stands where this fails; the stack
// is then what it was, and a warning says so.
func (e *Engine) settleRedo(p *plan) {
	if p.Redo == nil {
		return
	}
	if err := e.writeRedo(p.Ref, *p.Redo); err != nil {
		e.warnRedo(p.Kind, p.StepID, p.Ref, err)
	}
	if p.Kind == "apply" {
		e.clearOtherRedo(p.Ref)
	}
}

func (e *Engine) warnRedo(kind, stepID, ref string, err error) {
	fmt.Fprintf(e.opts.Log, "autocoder: warning: the %s of step %s is done, but the list of steps redo puts back could not be written: %v\nhint: autocoder log and git reflog %s show the steps; git reset --hard <commit> on the branch brings one back\n",
		kind, stepID, err, strings.TrimPrefix(ref, "refs/heads/"))
}

// recoverRedo is the redo stack of an undo or redo that recovery finishes
// from the journal of an autocoder older than the plan's Redo, which wrote
// the stack only after its journal was gone: an undo puts the commits it
// took away (from the old ref down to the new, the oldest on top) on the
// stack, a redo takes the new ref off its top.
func (e *Engine) recoverRedo(p *plan) {
	if p.Redo != nil || (p.Kind != "undo" && p.Kind != "redo") {
		return
	}
	stack := e.readRedo(p.Ref)
	switch p.Kind {
	case "undo":
		var taken []string
		for h := p.OldRef; h != p.NewRef; {
			c, err := e.repo.ReadCommit(h)
			if err != nil || len(c.Parents) == 0 || len(taken) > 10000 {
				return // not a line of commits down to the new ref: leave it
			}
			taken = append(taken, h.String())
			h = c.Parents[0]
		}
		if !hasSuffix(stack, taken) { // a recovery killed after it wrote them
			stack = append(stack, taken...)
		}
	case "redo":
		if len(stack) > 0 && stack[len(stack)-1] == p.NewRef.String() {
			stack = stack[:len(stack)-1]
		}
	}
	p.Redo = &stack
}

// rollbackTo takes back every step applied since start (--atomic): the
// files, the index entries, the branch, and HEAD as they were.
func (e *Engine) rollbackTo(start gitops.Head, redo []string) error {
	head, err := e.repo.ReadHEAD()
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
	diff, err := e.repo.DiffTrees(from, to)
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
	if head.Branch == start.Branch {
		// The run's steps cleared the branch's redo stack; the journal
		// carries it as it was, so that a rollback a kill interrupted and
		// the next command finished puts it back too.
		if redo == nil {
			redo = []string{}
		}
		p.Redo = &redo
	}
	return e.execute(p, nil)
}

func hasSuffix(s, tail []string) bool {
	if len(tail) > len(s) {
		return false
	}
	for i, t := range tail {
		if s[len(s)-len(tail)+i] != t {
			return false
		}
	}
	return true
}

func mkdirAll(p string) error { return os.MkdirAll(p, 0o777) }
