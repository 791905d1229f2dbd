package txn

import (
	"context"
	"errors"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
)

// Apply applies one step as a transaction: one commit on the work branch,
// or no trace at all. Outside Run it writes the index before it returns;
// inside Run the index is written once, at the end of the run.
//
// ctx cancels the step up to its commit point (the branch ref's write):
// until then a cancelled step is rolled back and leaves no trace; once
// committed, its programs are stopped with everything they started.
func (e *Engine) Apply(ctx context.Context, s *step.Step) step.Result {
	var absent []string
	if !e.batch {
		absent = e.absentOwnFiles()
	}
	r := e.apply(ctx, s)
	if !e.batch {
		defer e.clearTraces(absent, []step.Result{r})
		if err := e.Flush(); err != nil && r.Status != step.StatusFailed {
			// The step is committed (past its commit point); only the index
			// file lags, and the next command or Flush sets its entries.
			if r.Error != "" { // committed, with its files left to the next command
				r.Error += "; "
			}
			r.Error, r.Hint = r.Error+"committed, but the index was not written: "+err.Error(), step.HintOf(err)
		}
	}
	return r
}

func (e *Engine) apply(ctx context.Context, s *step.Step) step.Result {
	res := step.Result{Step: s, StepID: s.ID}
	fail := func(err error) step.Result { return failed(&res, err, false) }
	if s.Finish {
		res.Status = step.StatusRead
		return res
	}
	if err := cancelled(ctx); err != nil {
		return fail(err)
	}
	if s.WritesFiles() || len(s.Programs) > 0 {
		// Before anything is read: a rebase or merge under way is git's.
		if err := e.repo.InProgress(); err != nil {
			return fail(err)
		}
	}
	w, head, headTree, ch, err := e.resolveStep(s, nil, &res)
	if err != nil {
		return fail(err)
	}
	if len(ch) == 0 {
		for _, d := range w.dirs {
			if err := mkdirAll(e.repo.Abs(d)); err != nil {
				return fail(err)
			}
		}
		res.Status = step.StatusUnchanged
		if !s.WritesFiles() && len(s.Ops) > 0 {
			// A step of reads only; a step with no op at all (Axon's
			// git_add, end, git_init) has nothing to do and is unchanged.
			res.Status = step.StatusRead
		}
		if len(s.Programs) > 0 {
			res.Status = step.StatusApplied
			e.runPrograms(ctx, s, &res)
		}
		return res
	}
	held, err := e.lockIndex()
	if err != nil {
		return fail(err)
	}
	if err := w.guard(ch, held.ix); err != nil {
		return fail(err)
	}
	if err := e.refuseIgnored(ch); err != nil {
		return fail(err)
	}
	commit, p, err := e.buildCommit(s, head, headTree, w, ch)
	if err != nil {
		return fail(err)
	}
	if e.opts.Verify != nil {
		p.verify = func() error {
			out, err := e.opts.Verify(ctx, e.repo.Root)
			if err != nil {
				return &VerifyError{Output: out, Err: err}
			}
			return nil
		}
	}
	p.ctx = ctx
	// A new apply empties the branch's redo stack: past the commit point,
	// before the journal goes, so that the recovery of a killed one does
	// too (settleRedo).
	empty := []string{}
	p.Redo = &empty
	var kept *keptError
	if err := e.execute(p, held); errors.As(err, &kept) {
		// Committed: the branch names the step's commit, and the next
		// command puts the files the failed rollback left in place. Its
		// programs do not run on those files.
		res.Error, res.Hint = "committed, but its files are not all in place: "+err.Error(), step.HintOf(err)
		notAttempted(&res, "the step's files are not all in place until the next autocoder command")
		e.settleRedo(p) // execute did not: the move did not end
	} else if err != nil {
		return failed(&res, err, !errors.As(err, new(*unwrittenError)))
	}
	for _, c := range ch {
		switch path.Base(c.Path) {
		case ".gitattributes":
			e.repo.ForgetAttributes() // later steps see the rules as git will
		case ".gitignore":
			e.repo.ForgetIgnores()
		}
		if gitops.NamesSubmodules(c.Path) {
			e.gitlinks = nil // the submodules it names changed
		}
	}
	res.Status, res.Commit = step.StatusApplied, commit.String()
	e.addNote(commit, s)
	if len(s.Programs) > 0 && kept == nil {
		e.runPrograms(ctx, s, &res)
	}
	return res
}

// resolveStep is the first half of a step, shared by Apply and --dry-run:
// read HEAD, resolve every op in memory (overlay: files as earlier planned
// steps leave them), and list the paths whose state changes.
func (e *Engine) resolveStep(s *step.Step, overlay map[string]*file, res *step.Result) (w *workspace, head gitops.Head, headTree gitops.Hash, ch []pathChange, err error) {
	if head, err = e.repo.ReadHEAD(); err != nil {
		return
	}
	if headTree, err = e.treeOf(head.Hash); err != nil {
		return
	}
	w = &workspace{e: e, files: map[string]*file{}, overlay: overlay}
	if err = w.resolve(s, res); err != nil {
		return
	}
	ch, err = w.changes(headTree)
	return
}

// folderEntries lists the entries directly in the folder dir as the
// index in memory holds them, where it holds nothing deeper there (see
// gitops.Repo.UseFolders): a step then reads HEAD's tree of a large
// folder without inflating it, wherever the index holds that folder as
// HEAD does.
func (e *Engine) folderEntries(dir string) ([]gitops.TreeEntry, bool) {
	ix := e.ixCache
	if e.held != nil {
		ix = e.held.ix
	}
	if ix == nil {
		return nil, false
	}
	var es []gitops.TreeEntry
	ok := ix.Files(dir, func(name string, mode uint32, h [20]byte) {
		es = append(es, gitops.TreeEntry{Name: name, Mode: mode, Hash: h})
	})
	return es, ok
}

// refuseIgnored refuses a step that creates a file git ignores: git add
// refuses it, and a commit holding it would put into history what the
// user's rules keep out of it (build output, secrets in .env). It runs
// after guard, which refuses a new path the index holds (the user's staged
// work): git is asked about untracked paths only (gitops.Repo.Ignored).
func (e *Engine) refuseIgnored(ch []pathChange) error {
	var created []string
	for _, c := range ch {
		if c.New.Exists && !c.Old.Exists {
			created = append(created, c.Path)
		}
	}
	ignored, err := e.repo.Ignored(created)
	if err != nil {
		return err
	}
	for _, p := range created {
		if ig, ok := ignored[p]; ok {
			return ig
		}
	}
	return nil
}

// CancelledError is a step whose call was cancelled (the client cancelled
// it, went away, or the user pressed Ctrl-C) before its commit point:
// nothing of it was written, or what was is rolled back.
type CancelledError struct{ Err error }

func (e *CancelledError) Error() string {
	return "the step was cancelled before its commit (" + e.Err.Error() + "); nothing of it was kept"
}

// Unwrap returns context.Canceled or context.DeadlineExceeded.
func (e *CancelledError) Unwrap() error { return e.Err }

// Class: the step was not done; nothing of it remains.
func (e *CancelledError) Class() step.Class { return step.ClassStepFailed }

// Hint says what to do.
func (e *CancelledError) Hint() string { return "send the step again to apply it" }

// cancelled is a CancelledError when ctx has ended, else nil.
func cancelled(ctx context.Context) error {
	if ctx == nil || ctx.Err() == nil {
		return nil
	}
	return &CancelledError{Err: context.Cause(ctx)}
}

func (e *Engine) treeOf(commit gitops.Hash) (gitops.Hash, error) {
	if commit.IsZero() {
		return gitops.ZeroHash, nil
	}
	return e.repo.CommitTree(commit)
}

// buildCommit names the step's blobs, trees and commit object, which are
// written behind it (objects nobody references yet, harmless if the step
// fails), and returns the plan.
func (e *Engine) buildCommit(s *step.Step, head gitops.Head, headTree gitops.Hash, w *workspace, ch []pathChange) (_ gitops.Hash, _ *plan, err error) {
	ref, oldRef, newHEAD, err := e.workBranch(head)
	if err != nil {
		return gitops.ZeroHash, nil, err
	}
	// The step's objects are written behind it (gitops.WriteBehind):
	// moveTo waits for them before the ref names them.
	e.repo.WriteBehind()
	defer func() {
		if err != nil {
			e.repo.ObjectsWritten() // the step failed: its objects name nothing
		}
	}()
	if ref != head.Branch && !head.Hash.IsZero() {
		// A new work branch: where it starts is recorded before its first
		// commit, so that a crash cannot leave a branch without it.
		if err := e.recordStart(ref, head); err != nil {
			return gitops.ZeroHash, nil, err
		}
	}
	author, committer, err := e.identity()
	if err != nil {
		return gitops.ZeroHash, nil, err
	}
	content := map[string][]byte{}
	var tc []gitops.Change
	for _, c := range ch {
		if !c.New.Exists {
			tc = append(tc, gitops.Change{Path: c.Path, Delete: true})
			continue
		}
		f := w.files[c.Path]
		if _, err := e.repo.WriteBlob(f.blob); err != nil {
			return gitops.ZeroHash, nil, err
		}
		content[c.Path] = f.data
		tc = append(tc, gitops.Change{Path: c.Path, Mode: c.New.Mode, Hash: c.New.Hash})
	}
	tree, err := e.repo.EditTree(headTree, tc)
	if err != nil {
		return gitops.ZeroHash, nil, err
	}
	var parents []gitops.Hash
	if !head.Hash.IsZero() {
		parents = []gitops.Hash{head.Hash}
	}
	msg := CommitMessage(s, ch, e.repo.Root)
	commit, err := e.repo.WriteCommit(tree, parents, author, committer, msg)
	if err != nil {
		return gitops.ZeroHash, nil, err
	}
	subject, _, _ := strings.Cut(msg, "\n")
	kind := "commit"
	if len(parents) == 0 {
		kind = "commit (initial)"
	}
	p := &plan{
		Kind: "apply", StepID: s.ID, Ref: ref, OldRef: oldRef, NewRef: commit,
		OldHEAD: head.Raw, NewHEAD: newHEAD, HeadFrom: head.Hash, HeadTo: head.Hash, Paths: ch, Dirs: w.dirs,
		NewDirs: e.missingDirs(ch, w.dirs),
		Message: "autocoder " + kind + ": " + subject,
		content: content, who: committer,
	}
	return commit, p, nil
}

// missingDirs lists the folders that do not exist yet and that the plan
// will create (for its new files and its mkdirs), parents first.
func (e *Engine) missingDirs(ch []pathChange, mkdirs []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(dir string) {
		var chain []string
		for d := dir; d != "." && d != "" && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			if _, err := os.Lstat(e.repo.Abs(d)); err == nil {
				break
			}
			chain = append(chain, d)
		}
		for i := len(chain) - 1; i >= 0; i-- {
			out = append(out, chain[i])
		}
	}
	for _, c := range ch {
		if c.New.Exists {
			add(path.Dir(c.Path))
		}
	}
	for _, d := range mkdirs {
		add(d)
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.Count(out[i], "/") < strings.Count(out[j], "/") })
	return out
}
