package gitops

import (
	"bytes"
	"fmt"
	"os/exec"
)

// Dirty lists the worktree paths that differ from HEAD or the index, or
// that git does not track (ignored files excluded), by asking
// `git status`. It scans the whole worktree, so it is used only around
// programs, which may change any file; the apply path never calls it.
func (r *Repo) Dirty() ([]string, error) {
	cmd := exec.Command("git", "--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	cmd.Dir = r.Root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git status: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	var paths []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) > 3 {
			paths = append(paths, string(rec[3:]))
		}
	}
	return paths, nil
}
