package txn

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
)

func TestCommitMessageSubject(t *testing.T) {
	long := "Teach the matcher to find an edit whose old text has lost its indentation in the model's copy"
	for _, c := range []struct{ reason, want string }{
		{"add the parser", "Add the parser"},
		{"Added the parser.", "Add the parser"},
		{"Fixes the off-by-one in the scanner", "Fix the off-by-one in the scanner"},
		{"I'll add a login form to the app", "Add a login form to the app"},
		{"Let me update the README:", "Update the README"},
		{"Dropped the old flag", "Drop the old flag"},
		{"Address the review", "Address the review"}, // not a past tense
		{"修改 f 的返回值", "修改 f 的返回值"},
		// A command's "./..." is the command, not a final period.
		{"Run go test ./...", "Run go test ./..."},
		{"Record the files changed by go build ./...", "Record the files changed by go build ./..."},
		{"Add the parser..", "Add the parser"},
		{long, "Teach the matcher to find an edit whose old text has lost its…"},
	} {
		s := &step.Step{ID: "s", Reason: c.reason}
		subj := Subject(s, "")
		if subj != c.want {
			t.Errorf("Subject(%q) = %q, want %q", c.reason, subj, c.want)
		}
		if n := utf8.RuneCountInString(subj); n > maxSubject {
			t.Errorf("subject %q has %d characters", subj, n)
		}
	}
	// A cut subject keeps the whole reason in the body.
	msg := CommitMessage(&step.Step{ID: "s", Reason: long}, nil, "")
	if !strings.Contains(msg, "\n\n"+long+"\n") {
		t.Errorf("the full reason is not in the body:\n%s", msg)
	}
}

func TestCommitMessageBodyAndPaths(t *testing.T) {
	root := "/home/someone/work/proj"
	home, _ := os.UserHomeDir()
	h := func(b byte) gitops.Hash { var x gitops.Hash; x[0] = b; return x }
	s := &step.Step{ID: "s1", Reason: "Move the helpers out of " + root + "/src/main.go\n\nThey were in " + home + "/notes too.",
		Ops: []step.Op{{Kind: step.OpMove, Path: "src/util.go", To: "lib/util.go"}}}
	ch := []pathChange{
		{Path: "README.md", Old: entry{Exists: true, Mode: gitops.ModeFile, Hash: h(1)}, New: entry{Exists: true, Mode: gitops.ModeFile, Hash: h(2)}},
		{Path: "lib/util.go", New: entry{Exists: true, Mode: gitops.ModeFile, Hash: h(3)}},
		{Path: "new.txt", New: entry{Exists: true, Mode: gitops.ModeFile, Hash: h(4)}},
		{Path: "old.txt", Old: entry{Exists: true, Mode: gitops.ModeFile, Hash: h(5)}},
		{Path: "src/util.go", Old: entry{Exists: true, Mode: gitops.ModeFile, Hash: h(3)}},
	}
	msg := CommitMessage(s, ch, root)
	for _, want := range []string{
		"Move the helpers out of src/main.go\n\n",
		"Moved: src/util.go -> lib/util.go\nAdded: new.txt\nChanged: README.md\nDeleted: old.txt\n",
		"\nAutocoder-Step: s1\n",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, root) || (len(home) > 1 && strings.Contains(msg, home)) {
		t.Errorf("a local absolute path is in the message:\n%s", msg)
	}
}

// A step without a reason is described by what it does, in the same words
// on the terminal (Subject) and in the commit.
func TestCommitMessageWithoutReason(t *testing.T) {
	for _, c := range []struct {
		s    step.Step
		want string
	}{
		{step.Step{Ops: []step.Op{{Kind: step.OpWrite, Path: "a.txt"}}}, "Write a.txt"},
		{step.Step{Ops: []step.Op{{Kind: step.OpWrite, Path: "/r/a.txt"}, {Kind: step.OpReplace, Path: "b.go"}, {Kind: step.OpDelete, Path: "c"}}}, "Write a.txt, edit b.go and delete c"},
		{step.Step{Ops: []step.Op{{Kind: step.OpMove, Path: "a", To: "b"}}}, "Move a to b"},
		{step.Step{Checks: []step.Check{{Kind: step.CheckFilesExist, Paths: []string{"x"}}}}, "Check that x exists"},
		{step.Step{Programs: []step.Program{{Command: "go", Args: []string{"test", "./..."}}}}, "Run go test ./..."},
		{step.Step{Ops: []step.Op{
			{Kind: step.OpWrite, Path: "internal/something/quite/long/name_one.go"},
			{Kind: step.OpWrite, Path: "internal/something/quite/long/name_two.go"},
			{Kind: step.OpWrite, Path: "internal/something/quite/long/name_three.go"}}},
			"Write internal/something/quite/long/name_one.go and 2 more"},
	} {
		s := c.s
		s.ID = "x"
		if got := Subject(&s, "/r"); got != c.want {
			t.Errorf("Subject = %q, want %q", got, c.want)
		}
		if msg := CommitMessage(&s, nil, "/r"); !strings.HasPrefix(msg, c.want+"\n\n") {
			t.Errorf("commit message:\n%s\nwant subject %q", msg, c.want)
		}
	}
}
