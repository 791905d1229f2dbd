package gitops

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"

	"github.com/autocoder/autocoder/step"
)

// IgnoredError is a path a step would create that .gitignore (or
// .git/info/exclude, or core.excludesFile) ignores: git add refuses it
// ("The following paths are ignored by one of your .gitignore files"), and
// so does autocoder, naming the rule.
type IgnoredError struct {
	Path    string
	Source  string // the file that holds the rule, as git names it
	Line    string // its line number
	Pattern string
}

func (e *IgnoredError) Error() string {
	return fmt.Sprintf("refused %s: git ignores it (%s:%s: %s), so git add would not add it either", e.Path, e.Source, e.Line, e.Pattern)
}

// Class is refused.
func (e *IgnoredError) Class() step.Class { return step.ClassRefused }

// Hint says what to do.
func (e *IgnoredError) Hint() string {
	return "write the file somewhere git does not ignore, or change the rule in " + e.Source + " (git check-ignore -v " + e.Path + " shows it); an ignored file cannot be part of a step's commit"
}

// Ignored reports, for each of paths that git would ignore, the rule that
// ignores it (git check-ignore -v, one run for all paths). Tracked paths
// are never ignored. A rule that un-ignores ("!pattern") does not count.
func (r *Repo) Ignored(paths []string) (map[string]*IgnoredError, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	cmd := exec.Command("git", "check-ignore", "-v", "-z", "--stdin")
	cmd.Dir = r.Root
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		return nil, nil // none ignored
	}
	if err != nil {
		return nil, fmt.Errorf("git check-ignore: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	f := bytes.Split(out, []byte{0})
	res := map[string]*IgnoredError{}
	for i := 0; i+3 < len(f); i += 4 {
		src, line, pat, p := string(f[i]), string(f[i+1]), string(f[i+2]), string(f[i+3])
		if src == "" || strings.HasPrefix(pat, "!") {
			continue
		}
		res[p] = &IgnoredError{Path: p, Source: src, Line: line, Pattern: pat}
	}
	return res, nil
}
