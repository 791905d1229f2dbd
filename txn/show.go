package txn

import (
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
