package txn

import (
	"errors"
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
	"github.com/go-git/go-git/v5/plumbing"
)

// StepInfo is what `autocoder show` tells about one step (see
// step.CommitInfo, where it lives so that report can write it).
type StepInfo = step.CommitInfo

// Show finds a step of the current work branch by its step id, or by its
// commit (a prefix of four or more hex digits), and describes it; with id
// "" the newest step. An id or prefix that fits several steps is an
// *AmbiguousStepError.
func (e *Engine) Show(id string) (*StepInfo, error) {
	branch, entries, err := e.Log()
	var nothing *NothingError
	if errors.As(err, &nothing) {
		// Off a work branch (the work was merged into main, as apply
		// says to do): a step is still found by its commit.
		if info, ok, serr := e.showCommit(id); ok || serr != nil {
			return info, serr
		}
		return nil, &NothingError{Why: nothing.Why, Fix: nothing.Fix + "; or give the step's commit: autocoder show COMMIT"}
	}
	if err != nil {
		return nil, err
	}
	var found *LogEntry
	var all []LogEntry
	for i, en := range entries {
		if id == "" && en.Kind == "step" || id != "" && (en.StepID == id || (len(id) >= 4 && strings.HasPrefix(en.Commit, strings.ToLower(id)))) {
			if found == nil {
				found = &entries[i]
			}
			all = append(all, en)
			if id == "" {
				break // no id: the newest step
			}
		}
	}
	if len(all) > 1 {
		// Step ids repeat (every response numbers its Axon steps from
		// axon-1), and a short commit prefix may fit two commits: the
		// newest is a guess, so the user picks.
		return nil, &AmbiguousStepError{ID: id, Branch: branch, Candidates: all}
	}
	if found == nil && id == "" {
		return nil, &NothingError{Why: "no step on " + branch + " yet", Fix: "apply a response first: autocoder apply response.md"}
	}
	if found == nil {
		// A commit of another branch (an earlier work branch, main after
		// a merge) is found by its commit too.
		if info, ok, serr := e.showCommit(id); ok || serr != nil {
			return info, serr
		}
		var ids []string
		for _, en := range entries {
			if en.StepID != "" {
				ids = append(ids, en.StepID)
			}
		}
		fix := "autocoder log lists the steps of " + branch
		if len(ids) > 0 {
			fix = "the steps of " + branch + ", newest first: " + strings.Join(ids, ", ")
		}
		return nil, &step.Error{C: step.ClassUsage, Msg: "no step " + id + " on " + branch, Fix: fix}
	}
	return e.describe(*found, branch)
}

// showCommit finds a step by its commit anywhere in the repository; ok is
// false when id names no commit. A commit that is not a step is an error.
func (e *Engine) showCommit(id string) (info *StepInfo, ok bool, err error) {
	if len(id) < 4 {
		return nil, false, nil
	}
	h, ok := e.repo.ResolveCommit(id)
	if !ok {
		return nil, false, nil
	}
	c, err := e.repo.ReadCommit(h)
	if err != nil {
		return nil, true, err
	}
	en := logEntry(c)
	if en.Kind != "step" {
		return nil, true, &step.Error{C: step.ClassUsage, Msg: "commit " + h.String()[:12] + " is not a step of autocoder: it has no Autocoder-Step trailer",
			Fix: "git log --grep '^Autocoder-Step:' lists the step commits"}
	}
	info, err = e.describe(en, "")
	return info, true, err
}

// describe is what show tells about the commit of en, on branch ("" when
// it was found by its commit off a work branch).
func (e *Engine) describe(en LogEntry, branch string) (*StepInfo, error) {
	found := &en
	h := plumbing.NewHash(found.Commit)
	c, err := e.repo.ReadCommit(h)
	if err != nil {
		return nil, err
	}
	info := &StepInfo{LogEntry: *found, Branch: branch, Message: c.Message}
	parentTree := gitops.ZeroHash
	if len(c.Parents) > 0 {
		if parentTree, err = e.treeOf(c.Parents[0]); err != nil {
			return nil, err
		}
	}
	diffs, err := e.repo.DiffTrees(parentTree, c.Tree)
	if err != nil {
		return nil, err
	}
	for _, d := range diffs {
		kind := "M"
		switch {
		case d.From.Hash.IsZero():
			kind = "A"
		case d.To.Hash.IsZero():
			kind = "D"
		}
		info.Files = append(info.Files, kind+" "+d.Path)
	}
	if note, ok, err := e.repo.Note(gitops.NotesRef, h); err == nil && ok {
		info.Block = string(note)
	}
	return info, nil
}

// AmbiguousStepError is a step id (or commit prefix) that several steps of
// the work branch have: every response numbers its steps from 1, so
// "axon-1" is in each apply's steps.
type AmbiguousStepError struct {
	ID         string
	Branch     string
	Candidates []LogEntry // newest first
	// Runs names, by commit, the autocoder run and turn a candidate came
	// from ("run 2026-11-25T15-10-00.json, turn 2"), when the caller knows.
	Runs map[string]string
}

func (e *AmbiguousStepError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d steps on %s match %s:", len(e.Candidates), e.Branch, e.ID)
	for _, c := range e.Candidates {
		fmt.Fprintf(&b, "\n  %s  %s  %s", c.Commit[:12], c.Date, c.Subject)
		if r := e.Runs[c.Commit]; r != "" {
			fmt.Fprintf(&b, "  (%s)", r)
		} else if c.StepID != "" && c.StepID != e.ID {
			fmt.Fprintf(&b, "  (step %s)", c.StepID)
		}
	}
	return b.String()
}

// Class is usage: the command needs a step named once.
func (e *AmbiguousStepError) Class() step.Class { return step.ClassUsage }

// Hint says how to name one.
func (e *AmbiguousStepError) Hint() string {
	return "name one by its commit: autocoder show " + e.Candidates[0].Commit[:12]
}
