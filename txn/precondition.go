package txn

// The preconditions a step can carry (check_files_exist, check_cwd_match,
// expectedSha256), checked before anything of the step is written.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/autocoder/autocoder/pathpolicy"
	"github.com/autocoder/autocoder/step"
)

// PreconditionError is a check that failed (exit code 3): the repository is
// not in the state the step expected, so nothing of it is applied.
type PreconditionError struct {
	Check string // "check_files_exist", "check_cwd_match", "expectedSha256"
	Why   string
	Fix   string
}

func (e *PreconditionError) Error() string { return fmt.Sprintf("%s failed: %s", e.Check, e.Why) }

// Hint says what to do.
func (e *PreconditionError) Hint() string { return e.Fix }

// Class is precondition: a check the step asked for did not hold.
func (e *PreconditionError) Class() step.Class { return step.ClassPrecondition }

// filesExist checks that every path exists. missing gets the paths that do
// not, in order.
func filesExist(p *pathpolicy.Policy, paths []string) error {
	var missing []string
	for _, raw := range paths {
		rel, err := p.ResolveRead(raw)
		if err != nil {
			return err
		}
		if _, err := os.Lstat(filepath.Join(p.Root, filepath.FromSlash(rel))); err != nil {
			missing = append(missing, raw)
		}
	}
	if len(missing) > 0 {
		return &PreconditionError{Check: "check_files_exist",
			Why: "missing: " + strings.Join(missing, ", "),
			Fix: "the plan expected files this repository does not have; list the tree (read it first) and send a plan for the files that exist"}
	}
	return nil
}

// cwdMatch checks that the repository root is want, comparing whole path
// components (so /repo2 does not pass for /repo); "~" expands to $HOME and
// symlinks are resolved on both sides.
func cwdMatch(root, want string) error {
	w := strings.TrimSpace(want)
	if w == "~" || strings.HasPrefix(w, "~/") {
		home, _ := os.UserHomeDir()
		w = filepath.Join(home, strings.TrimPrefix(w, "~"))
	}
	w = filepath.Clean(w)
	if real, err := filepath.EvalSymlinks(w); err == nil {
		w = real
	}
	if w == filepath.Clean(root) {
		return nil
	}
	return &PreconditionError{Check: "check_cwd_match",
		Why: fmt.Sprintf("the working folder is %s, not %s", root, strings.TrimSpace(want)),
		Fix: "the plan was written for another folder; check the path, or drop check_cwd_match if the plan fits this repository"}
}

// checkSHA256 checks a file's current content against an expected hex SHA-256.
// A missing file has no hash and never matches.
func checkSHA256(rel string, content []byte, exists bool, want string) error {
	want = strings.ToLower(strings.TrimSpace(want))
	if !exists {
		return &PreconditionError{Check: "expectedSha256", Why: rel + " does not exist",
			Fix: "drop expectedSha256 to create the file, or check the path"}
	}
	sum := sha256.Sum256(content)
	got := hex.EncodeToString(sum[:])
	if got != want {
		return &PreconditionError{Check: "expectedSha256",
			Why: fmt.Sprintf("%s has sha256 %s, not %s: it changed since you read it", rel, got, want),
			Fix: "read the file again and base the write on its current content"}
	}
	return nil
}
