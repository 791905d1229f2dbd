package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/step"
)

// The columns of log, undo and apply line up also when a step id is longer
// than the usual width (the commit of a step's programs is "<id>.programs"),
// and no line ends in spaces.
func TestColumnsLineUpWithLongStepIDs(t *testing.T) {
	c := strings.Repeat("a", 40)
	entries := []step.LogEntry{
		{StepID: "verbose_001.programs", Kind: "step", Commit: c, Subject: "Record", Date: "2026-11-23 16:28:34 +0000"},
		{StepID: "test_002", Kind: "step", Commit: c, Subject: "Test greet", Date: "2026-11-23 16:28:31 +0000"},
	}
	var b bytes.Buffer
	Log(&b, "autocoder/main", entries)
	Undone(&b, entries)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	sameColumn(t, "log", lines[1:3], "2026-11-23")
	sameColumn(t, "undo", lines[3:5], c[:12])

	var out, errw bytes.Buffer
	Run{Results: []step.Result{
		{StepID: "verbose_001.programs", Status: step.StatusApplied, Commit: c},
		{StepID: "x", Status: step.StatusApplied, Commit: c},
		{ParseErr: &step.ParseError{Pos: step.Pos{Line: 31}, Msg: "unknown act"}, Status: step.StatusFailed},
	}}.Text(&out, &errw)
	lines = strings.Split(out.String(), "\n")
	sameColumn(t, "apply", lines[:2], c[:12])
	for _, l := range append(strings.Split(b.String(), "\n"), lines...) {
		if strings.TrimRight(l, " ") != l {
			t.Errorf("line ends in spaces: %q", l)
		}
	}
}

func sameColumn(t *testing.T, what string, lines []string, field string) {
	t.Helper()
	at := -1
	for _, l := range lines {
		i := strings.Index(l, field)
		if i < 0 {
			t.Fatalf("%s: %q lacks %q", what, l, field)
		}
		if at >= 0 && i != at {
			t.Errorf("%s: columns do not line up:\n%s", what, strings.Join(lines, "\n"))
			return
		}
		at = i
	}
}

// A step of several reads says which output is which: the file's content
// and a listing ran together with nothing between them.
func TestReadOutputsAreNamed(t *testing.T) {
	var out, errw bytes.Buffer
	Run{Results: []step.Result{{StepID: "look", Status: step.StatusRead, Ops: []step.OpResult{
		{Kind: step.OpRead, Path: "a.go", Status: step.StatusRead, Output: "package a\n"},
		{Kind: step.OpList, Path: ".", Status: step.StatusRead, Output: "a.go\n"},
	}}}}.Text(&out, &errw)
	want := "    read a.go:\n    package a\n    list .:\n    a.go\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("output:\n%s\nwant it to hold:\n%s", out.String(), want)
	}
	// One read alone is shown as before, without a name line.
	out.Reset()
	Run{Results: []step.Result{{StepID: "look", Status: step.StatusRead, Ops: []step.OpResult{
		{Kind: step.OpRead, Path: "a.go", Status: step.StatusRead, Output: "package a\n"},
	}}}}.Text(&out, &errw)
	if strings.Contains(out.String(), "read a.go:") {
		t.Errorf("a single read is named:\n%s", out.String())
	}
}
