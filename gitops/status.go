package gitops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
)

// Dirty lists the worktree paths that differ from HEAD or the index, or
// that git does not track (ignored files excluded), by asking
// `git status`. It scans the whole worktree, so it is used only around
// programs, which may change any file; the apply path never calls it.
func (r *Repo) Dirty() ([]string, error) {
	out, err := Git(context.Background(), r.Root, "--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if ge := (*gitError)(nil); errors.As(err, &ge) {
		return nil, fmt.Errorf("git status: %v: %s", ge.err, ge.stderr)
	}
	var paths []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) > 3 {
			paths = append(paths, string(rec[3:]))
		}
	}
	return paths, nil
}
