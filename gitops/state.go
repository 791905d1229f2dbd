package gitops

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/autocoder/autocoder/step"
)

// InProgressError is a git operation that stopped half-way in this
// worktree (a rebase, merge, cherry-pick, revert, bisect or git am). Every
// command of ours that changes the repository refuses while one is under
// way, as git switch refuses: a step commit in the middle of a rebase would
// become part of what the rebase rewrites, and moving HEAD would lose the
// operation's place.
type InProgressError struct {
	State  string // "rebase", "merge", "cherry-pick", "revert", "bisect", "am"
	Ends   string // the git commands that end it
	Marker string // the file or folder under the git directory that says so
}

func (e *InProgressError) Error() string {
	return "refused: a git " + e.State + " is in progress in this repository (" + e.Marker + " exists)"
}

// Class is refused: the repository is not in a state we may change.
func (e *InProgressError) Class() step.Class { return step.ClassRefused }

// Hint names the git commands that end the operation.
func (e *InProgressError) Hint() string {
	return "finish or abort the " + e.State + " first (" + e.Ends + "), then run the autocoder command again; nothing was changed"
}

// InProgress reports the git operation under way in this worktree, or nil.
// It follows wt_status_get_state in git's wt-status.c: the state files live
// in the per-worktree git directory, and rebase-apply/ is git am's when it
// holds "applying". A cherry-pick or revert of several commits that stopped
// between commits has no CHERRY_PICK_HEAD/REVERT_HEAD but still a
// sequencer/todo, which `git cherry-pick --continue` reads.
func (r *Repo) InProgress() error {
	exists := func(name string) bool {
		_, err := os.Lstat(filepath.Join(r.GitDir, filepath.FromSlash(name)))
		return err == nil
	}
	st := func(state, ends, marker string) error {
		return &InProgressError{State: state, Ends: ends, Marker: marker}
	}
	switch {
	case exists("rebase-merge"):
		return st("rebase", "git rebase --continue, or git rebase --abort", "rebase-merge/")
	case exists("rebase-apply/applying"):
		return st("am", "git am --continue, or git am --abort", "rebase-apply/applying")
	case exists("rebase-apply"):
		return st("rebase", "git rebase --continue, or git rebase --abort", "rebase-apply/")
	case exists("MERGE_HEAD"):
		return st("merge", "commit the merge with git commit, or git merge --abort", "MERGE_HEAD")
	case exists("CHERRY_PICK_HEAD"):
		return st("cherry-pick", "git cherry-pick --continue, or git cherry-pick --abort", "CHERRY_PICK_HEAD")
	case exists("REVERT_HEAD"):
		return st("revert", "git revert --continue, or git revert --abort", "REVERT_HEAD")
	case exists("BISECT_LOG"):
		return st("bisect", "git bisect reset", "BISECT_LOG")
	case exists("sequencer/todo"):
		if sequencerVerb(filepath.Join(r.GitDir, "sequencer", "todo")) == "revert" {
			return st("revert", "git revert --continue, or git revert --abort", "sequencer/todo")
		}
		return st("cherry-pick", "git cherry-pick --continue, or git cherry-pick --abort", "sequencer/todo")
	}
	return nil
}

// sequencerVerb is the first word of the first command in a sequencer todo
// list ("pick" or "revert"), as git's sequencer reads it.
func sequencerVerb(todo string) string {
	f, err := os.Open(todo)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, _, _ := strings.Cut(line, " ")
		return verb
	}
	return ""
}
