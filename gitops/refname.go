package gitops

import (
	"fmt"
	"regexp"
	"sync"
)

// CheckBranchName reports, with an error saying which rule, whether name
// (a branch name, without refs/heads/) breaks a rule of git
// check-ref-format --branch: no control character, space, ~ ^ : ? * [ or
// \, no "..", "@{", "//", no component starting with "." or ending with
// ".lock", no "/" at either end, no "." at the end, no "-" at the start.
func CheckBranchName(name string) error {
	if name == "" || badRefName().MatchString(name) {
		return fmt.Errorf("%q is not a valid branch name (git check-ref-format)", name)
	}
	return nil
}

var badRefName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[\x00-\x20~^:?*\[\\\x7f]|\.\.|@\{|//|(^|/)\.|\.lock(/|$)|\.$|^/|/$|^-`)
})
