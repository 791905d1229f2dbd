package shellwords

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOnlyShellParserUser holds "one shell-word splitter" (issue 7): the
// program policy and the dialect readers split command lines with this
// package, so no other package of ours imports mvdan.cc/sh.
func TestOnlyShellParserUser(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}: {{join .Imports " "}}`, "github.com/autocoder/autocoder/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		if pkg == "github.com/autocoder/autocoder/shellwords" {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, "mvdan.cc/sh/") {
				t.Errorf("%s imports %s: split command lines with package shellwords", pkg, imp)
			}
		}
	}
}
