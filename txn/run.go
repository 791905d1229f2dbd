package txn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/autocoder/autocoder/step"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/unidiff"
)

// RunOptions change how Run applies a response.
type RunOptions struct {
	Atomic bool // all steps or none
	DryRun bool // change nothing; each op result carries its unified diff
	// OnResult, when set, is called with each step's result as soon as the
	// step is done (for progress, and for timing steps one by one).
	OnResult func(step.Result)
	// UndoOnCancel takes back every step of the run, as Atomic does, when
	// ctx ends before Run returns: `autocoder run` applies one model answer
	// per Run, and Ctrl-C must not leave half an answer on the branch.
	UndoOnCancel bool
	// StopLive, when set, ends the programs that keep running with the
	// run (Execute), each result saying StopLive: one-shot callers.
	StopLive string
}

// Run applies items in document order and stops at the first failure: a
// step that fails leaves no trace, earlier steps stay (unless Atomic), later
// ones are reported as skipped. An unreadable block counts as a failed step.
func (e *Engine) Run(ctx context.Context, items []step.Item, o RunOptions) (results []step.Result) {
	results, _ = e.run(ctx, items, o)
	return results
}

// DryRun is Run with DryRun set, and the whole run's patch besides: one
// file patch per touched path, from the repository as the run found it to
// what its planned steps leave, a moved file in git's rename form. git
// apply and patch -p1 accept it (the per-op diffs of the results, applied
// one after the other, patch --dry-run does not: it reads every file patch
// against the unchanged file). atomic is --atomic: when a step fails, the
// run would take every step back, so none is planned and the patch is
// empty.
func (e *Engine) DryRun(ctx context.Context, items []step.Item, atomic bool) ([]step.Result, string) {
	return e.run(ctx, items, RunOptions{DryRun: true, Atomic: atomic})
}

func (e *Engine) run(ctx context.Context, items []step.Item, o RunOptions) (results []step.Result, patch string) {
	overlay := map[string]*file{}
	p := &dryPlan{base: map[string]*file{}, movedFrom: map[string]string{}}
	failed := false
	defer func() {
		if o.DryRun && !(failed && o.Atomic) {
			patch = p.patch(overlay)
		}
	}()
	start, startErr := e.repo.ReadHEAD()
	if !o.DryRun {
		absent := e.absentOwnFiles()
		defer func() { e.clearTraces(absent, results) }()
	}
	e.batch = true
	defer func() { e.batch = false }()
	// --atomic: a failed run must leave even the redo stack as it was.
	savedRedo := e.readRedo(start.Branch)
	notesStart, _, _ := e.repo.ResolveRef(gitops.NotesRef)
	for _, it := range items {
		if failed {
			r := step.Result{Status: step.StatusSkipped}
			if it.Step != nil {
				r.Step, r.StepID = it.Step, it.Step.ID
				notAttempted(&r, "an earlier step failed")
			} else {
				r.ParseErr = it.Err
			}
			results = append(results, r)
			continue
		}
		var r step.Result
		switch {
		case it.Err != nil:
			// Among readable blocks, an unreadable one is a failed step
			// (exit code 1); it is no_block only when no block is readable.
			r = step.Unreadable(it.Err, false)
		case o.DryRun:
			r = e.dryRun(it.Step, overlay, p)
		default:
			r = e.Apply(ctx, it.Step)
		}
		results = append(results, r)
		if o.OnResult != nil {
			o.OnResult(r)
		}
		if r.Status == step.StatusFailed {
			failed = true // a failed step stops the run, in every dialect
		}
	}
	var flushFailed *step.Result
	if err := e.Flush(); err != nil {
		flushFailed = &step.Result{StepID: "index", Status: step.StatusFailed, Error: err.Error(), Hint: step.HintOf(err), Class: step.ClassOf(err), Reason: reasonOf(err)}
		failed = true // the run did not complete: --atomic takes it back
	}
	defer func() {
		if flushFailed != nil {
			results = append(results, *flushFailed)
		}
	}()
	if failed && o.Atomic && o.DryRun {
		// --atomic would take back every step it applied: a dry run of it
		// plans none, and says why.
		const why = "not applied: a later step fails, and --atomic applies all steps or none (dry run: nothing was changed)"
		for i := range results {
			if results[i].Status != step.StatusPlanned {
				continue
			}
			results[i].Status, results[i].Error, results[i].Reason = step.StatusFailed, why, step.ReasonRolledBack
			for j := range results[i].Ops {
				if results[i].Ops[j].Status == step.StatusPlanned {
					results[i].Ops[j].Status, results[i].Ops[j].Message = step.StatusSkipped, why
				}
				results[i].Ops[j].Diff = ""
			}
		}
	}
	interrupted := o.UndoOnCancel && ctx != nil && ctx.Err() != nil
	if (failed && o.Atomic || interrupted) && !o.DryRun && startErr == nil {
		err := e.rollbackTo(start)
		if err == nil {
			err = e.Flush()
		}
		if err != nil {
			results = append(results, step.Result{StepID: "atomic-rollback", Status: step.StatusFailed,
				Error: "--atomic: could not take back the applied steps: " + err.Error(), Hint: step.HintOf(err), Class: step.ClassOf(err)})
			return results, ""
		}
		if start.Branch != "" {
			e.writeRedo(start.Branch, savedRedo)
		}
		e.resetNotes(notesStart)
		for i := range results {
			if results[i].Status == step.StatusApplied {
				results[i].Status = step.StatusFailed
				results[i].Error = "rolled back by --atomic: a later step failed"
				why := "a later step failed and --atomic took this one back"
				if interrupted {
					results[i].Error = "rolled back: the run was interrupted before it ended"
					why = "the run was interrupted and took this step back"
				}
				results[i].Reason = step.ReasonRolledBack
				results[i].Commit, results[i].ProgramCommit = "", ""
				rolledBack(&results[i], why)
			}
		}
	}
	return results, ""
}

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
			r.Error, r.Hint = "committed, but the index was not written: "+err.Error(), step.HintOf(err)
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
	if err := e.execute(p, held); err != nil {
		return failed(&res, err, true)
	}
	e.clearRedo(p.Ref)
	for _, c := range ch {
		switch path.Base(c.Path) {
		case ".gitattributes":
			e.repo.ForgetAttributes() // later steps see the rules as git will
		case ".gitignore":
			e.repo.ForgetIgnores()
		}
	}
	res.Status, res.Commit = step.StatusApplied, commit.String()
	e.addNote(commit, s)
	if len(s.Programs) > 0 {
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

// failed marks the result failed by err, with its hint and classes, and
// gives each op its one outcome: the op the failure belongs to (the one
// that failed to resolve, or the one whose path a refusal names: the
// user's uncommitted work, an ignored file) failed or is refused with the
// error; the ops done before it are rolled back because that later part
// of the same step failed, those after it not attempted. A failure that
// belongs to no op (no identity, a lock held, git's state) came before
// anything was written: no op was attempted. written: the failure came
// while the step was being written, which took every op of it back.
func failed(r *step.Result, err error, written bool) step.Result {
	r.Status, r.Error, r.Hint = step.StatusFailed, err.Error(), step.HintOf(err)
	r.Class, r.Reason = step.ClassOf(err), reasonOf(err)
	if r.Step != nil {
		r.Line = r.Step.Pos.Line
	}
	blame := -1
	if n := len(r.Ops); n > 0 && r.Ops[n-1].Status == step.StatusFailed {
		blame = n - 1
	} else if !written {
		if blame = opOf(r, pathOf(err)); blame >= 0 {
			op := &r.Ops[blame]
			op.Status, op.Error, op.Hint, op.Message = step.StatusFailed, r.Error, r.Hint, ""
		}
	}
	why := "this step failed before it"
	switch {
	case blame >= 0:
		r.Op = blame + 1
		if r.Step != nil && blame < len(r.Step.Ops) && r.Step.Ops[blame].Pos.Line > 0 {
			r.Line = r.Step.Ops[blame].Pos.Line
		}
		what := "failed"
		if r.Class == step.ClassRefused {
			what = "was refused"
		}
		op := r.Ops[blame]
		which := fmt.Sprintf("(operation %d, %s %s)", blame+1, op.Kind, op.Path)
		for i := range r.Ops {
			if i != blame && r.Ops[i].Status == step.StatusApplied {
				when := "a later"
				if i > blame {
					when = "an earlier"
				}
				r.Ops[i].Status = step.StatusRolledBack
				r.Ops[i].Message = fmt.Sprintf("rolled back, not applied: %s operation of this step %s %s, and the step was taken back whole", when, what, which)
			}
		}
		why = fmt.Sprintf("an earlier operation of this step %s %s", what, which)
		if pathOf(err) != "" && r.Step != nil && blame < len(r.Step.Ops) {
			// The op's error names its place, as an op's own failure does.
			r.Error = (&OpError{Op: &r.Step.Ops[blame], Err: err}).Error()
			r.Ops[blame].Error = err.Error()
		}
	case written:
		rolledBack(r, "the step failed after it and was taken back whole")
	default:
		stopped := "the step failed before it wrote anything"
		if r.Class == step.ClassRefused {
			stopped = "the step was refused before it wrote anything"
		}
		for i := range r.Ops {
			if r.Ops[i].Status == step.StatusApplied {
				r.Ops[i].Status, r.Ops[i].Message = step.StatusSkipped, "not attempted: "+stopped
			}
		}
		why = stopped
	}
	notAttempted(r, why)
	return *r
}

// pathOf is the path a refusal of err is about (the user's uncommitted
// work, a file git ignores), or "": a field of the error, never its text.
func pathOf(err error) string {
	var de *DirtyError
	var ie *gitops.IgnoredError
	switch {
	case errors.As(err, &de):
		return de.Path
	case errors.As(err, &ie):
		return ie.Path
	}
	return ""
}

// opOf is the index of the op of r that touches rel (its path or its
// target, or a folder holding it), or -1.
func opOf(r *step.Result, rel string) int {
	if rel == "" {
		return -1
	}
	for i, op := range r.Ops {
		if op.Path == rel || op.To == rel {
			return i
		}
	}
	for i, op := range r.Ops {
		if op.Path != "" && strings.HasPrefix(rel, op.Path+"/") || op.To != "" && strings.HasPrefix(rel, op.To+"/") {
			return i
		}
	}
	return -1
}

// notApplied rewrites a dry run's failed step: the ops that passed before
// the failure were never applied, so they were not rolled back either; they
// are not applied (skipped) because their step fails, and a step applies
// whole or not at all.
func notApplied(r step.Result) step.Result {
	why := "the step fails after it"
	if slices.ContainsFunc(r.Ops, func(o step.OpResult) bool { return o.Status == step.StatusFailed }) {
		why = "a later operation of this step fails"
	}
	for i := range r.Ops {
		if r.Ops[i].Status != step.StatusRolledBack {
			continue
		}
		r.Ops[i].Status = step.StatusSkipped
		r.Ops[i].Message = "not applied: " + why + ", and a step applies whole or not at all (dry run: nothing was changed)"
	}
	return r
}

// rolledBack marks the ops of r that were done as rolled back: their step
// was taken back whole, so nothing of them remains and no answer may call
// them applied.
func rolledBack(r *step.Result, why string) {
	for i := range r.Ops {
		if r.Ops[i].Status == step.StatusApplied {
			r.Ops[i].Status = step.StatusRolledBack
			r.Ops[i].Message = "rolled back, not applied: " + why
		}
	}
}

// notAttempted completes the result of a step that failed or was skipped:
// each op past those it reports, and each program, was not attempted, and
// says why, so that the feedback answers every operation the model sent.
func notAttempted(r *step.Result, why string) {
	if r.Step == nil {
		return
	}
	for i := len(r.Ops); i < len(r.Step.Ops); i++ {
		op := r.Step.Ops[i]
		r.Ops = append(r.Ops, step.OpResult{Kind: op.Kind, Path: op.Path, To: op.To, Status: step.StatusSkipped,
			Message: "not attempted: " + why})
	}
	for i := len(r.Programs); i < len(r.Step.Programs); i++ {
		p := r.Step.Programs[i]
		if p.Terminate {
			continue // check_program asks to stop, not to run
		}
		r.Programs = append(r.Programs, step.ProgramResult{Name: programName(p, i), Status: step.ProgramNotAttempted,
			ReturnCode: -1, Error: "not attempted: " + why})
	}
}

func (e *Engine) treeOf(commit gitops.Hash) (gitops.Hash, error) {
	if commit.IsZero() {
		return gitops.ZeroHash, nil
	}
	c, err := e.repo.ReadCommit(commit)
	if err != nil {
		return gitops.ZeroHash, err
	}
	return c.Tree, nil
}

// buildCommit writes the step's blobs, trees and commit object (objects
// nobody references yet, harmless if the step fails) and returns the plan.
func (e *Engine) buildCommit(s *step.Step, head gitops.Head, headTree gitops.Hash, w *workspace, ch []pathChange) (gitops.Hash, *plan, error) {
	ref, oldRef, newHEAD, err := e.workBranch(head)
	if err != nil {
		return gitops.ZeroHash, nil, err
	}
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

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

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
	var names []string
	for n := 1; ; n++ {
		name := workBranchName(e.opts.BranchPrefix, base, n)
		if !e.repo.BranchExists(name) {
			return names
		}
		names = append(names, name)
	}
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

// dryRun computes a step without changing anything (--dry-run): the same
// resolve and guard as Apply, and a unified diff per changed file. overlay
// carries the files as earlier steps of the run would leave them.
func (e *Engine) dryRun(s *step.Step, overlay map[string]*file, p *dryPlan) step.Result {
	res := step.Result{Step: s, StepID: s.ID}
	fail := func(err error) step.Result { return notApplied(failed(&res, err, false)) }
	if s.Finish {
		res.Status = step.StatusRead
		return res
	}
	w, _, _, ch, err := e.resolveStep(s, overlay, &res)
	if err != nil {
		return fail(err)
	}
	// Only paths not changed by earlier planned steps are checked against
	// the user's work: the others are ours.
	var fresh []pathChange
	for _, c := range ch {
		if _, ok := overlay[c.Path]; !ok {
			fresh = append(fresh, c)
		}
	}
	ix, err := e.repo.ReadIndex()
	if err != nil {
		return fail(err)
	}
	if err := w.guard(fresh, ix); err != nil {
		return fail(err)
	}
	if err := e.refuseIgnored(ch); err != nil {
		return fail(err)
	}
	diffs := map[string]string{}
	changed := false
	for _, rel := range w.order {
		f := w.files[rel]
		if f.exists == f.origExists && string(f.data) == string(f.origData) && f.mode == f.origMode {
			continue
		}
		changed = true
		diffs[rel] = fileDiff(rel, f)
		if _, ok := p.base[rel]; !ok {
			p.base[rel] = &file{rel: rel, exists: f.origExists, data: f.origData, mode: f.origMode}
			p.order = append(p.order, rel)
		}
		overlay[rel] = &file{rel: rel, exists: f.exists, data: f.data, mode: f.mode}
	}
	for _, op := range s.Ops {
		if op.Kind == step.OpMove && op.To != "" {
			from := op.Path
			if o, ok := p.movedFrom[from]; ok {
				from = o
				delete(p.movedFrom, op.Path)
			}
			p.movedFrom[op.To] = from
		}
	}
	for i := range res.Ops {
		res.Ops[i].Diff = diffs[res.Ops[i].Path]
		if res.Ops[i].To != "" {
			res.Ops[i].Diff += diffs[res.Ops[i].To]
		}
		if res.Ops[i].Status == step.StatusApplied {
			res.Ops[i].Status = step.StatusPlanned
		}
	}
	switch {
	case changed:
		res.Status = step.StatusPlanned
	case s.WritesFiles():
		res.Status = step.StatusUnchanged
	default:
		res.Status = step.StatusRead
	}
	return res
}

// dryPlan is what a dry run has planned so far: each changed path as the run
// found it (base, in the order first changed) and where a moved file came
// from (movedFrom: its path before the run, by its path now).
type dryPlan struct {
	base      map[string]*file
	order     []string
	movedFrom map[string]string
}

// patch is the whole run's patch: each changed path from base to what
// overlay holds now; a file that a move created, whose origin is gone, in
// rename form (with its changes) instead of a deletion and a creation.
func (p *dryPlan) patch(overlay map[string]*file) string {
	renamed := map[string]string{} // origin -> new path
	for _, rel := range p.order {
		now, was := overlay[rel], p.base[rel]
		from, ok := p.movedFrom[rel]
		if !ok || now == nil || !now.exists || was.exists {
			continue
		}
		fb, fn := p.base[from], overlay[from]
		if fb == nil || !fb.exists || fn == nil || fn.exists {
			continue
		}
		if _, taken := renamed[from]; !taken {
			renamed[from] = rel
		}
	}
	var b strings.Builder
	for _, rel := range p.order {
		if _, gone := renamed[rel]; gone {
			continue // written as the rename's source
		}
		now, was := overlay[rel], p.base[rel]
		from := rel
		for o, n := range renamed {
			if n == rel {
				from, was = o, p.base[o]
			}
		}
		var oldMode, newMode uint32
		if was.exists {
			oldMode = was.mode
		}
		if now.exists {
			newMode = now.mode
		}
		b.WriteString(unidiff.File(from, rel, was.data, now.data, oldMode, newMode))
	}
	return b.String()
}

// fileDiff is one touched path's patch in git's format (unidiff.File): a
// path that did not exist before, or does not after, has mode 0.
func fileDiff(rel string, f *file) string {
	var oldMode, newMode uint32
	if f.origExists {
		oldMode = f.origMode
	}
	if f.exists {
		newMode = f.mode
	}
	return unidiff.File(rel, rel, f.origData, f.data, oldMode, newMode)
}

// addNote stores the step's raw block as a git note on its commit
// (gitops.NotesRef), so `git notes --ref autocoder show` and `autocoder
// show` say what the model wrote. The step is committed already: a note
// that cannot be written is a warning, not a failure.
func (e *Engine) addNote(commit gitops.Hash, s *step.Step) {
	if s.Raw == "" {
		return
	}
	_, who, err := e.identity()
	if err == nil {
		text := s.Raw
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		err = e.repo.AddNote(gitops.NotesRef, commit, []byte(text), who, e.priv)
	}
	if err != nil {
		fmt.Fprintf(e.opts.Log, "autocoder: warning: step %s: its block was not stored as a note on %s: %v\n", s.ID, commit.String()[:12], err)
	}
}

// resetNotes moves the notes ref back to where a run found it, when the run
// took its steps back: their notes go with them.
func (e *Engine) resetNotes(to gitops.Hash) {
	cur, _, err := e.repo.ResolveRef(gitops.NotesRef)
	if err != nil || cur == to {
		return
	}
	_, who, err := e.identity()
	if err == nil {
		err = e.repo.UpdateRef(gitops.RefUpdate{Name: gitops.NotesRef, Old: cur, New: to, Who: who,
			Message: "autocoder: notes of steps taken back"}, e.priv)
	}
	if err != nil {
		fmt.Fprintf(e.opts.Log, "autocoder: warning: the notes of the steps taken back stay in %s: %v\n", gitops.NotesRef, err)
	}
}
