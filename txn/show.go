package txn

import (
	"errors"
	"strings"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
	"github.com/go-git/go-git/v5/plumbing"
)

// StepInfo is what `autocoder show` tells about one step (see
// step.CommitInfo, where it lives so that protocol/report can write it).
type StepInfo = step.CommitInfo

// Show finds a step of the current work branch by its step id, or by its
// commit (a prefix of four or more hex digits), and describes it.
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
	for i, en := range entries {
		if en.StepID == id || (len(id) >= 4 && strings.HasPrefix(en.Commit, strings.ToLower(id))) {
			found = &entries[i]
			break
		}
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
	h, ok := e.Repo.ResolveCommit(id)
	if !ok {
		return nil, false, nil
	}
	c, err := e.Repo.ReadCommit(h)
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
	c, err := e.Repo.ReadCommit(h)
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
	diffs, err := e.Repo.DiffTrees(parentTree, c.Tree)
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
	if note, ok, err := e.Repo.Note(gitops.NotesRef, h); err == nil && ok {
		info.Block = string(note)
	}
	return info, nil
}
