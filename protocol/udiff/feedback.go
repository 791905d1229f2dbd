package udiff

import (
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/step"
)

// Feedback answers as git apply -v does: each file of a diff that applied
// ("Applied patch to 'a.py' cleanly."), or the error of the diff that failed
// with the hint (for a hunk that was not found, the file's real lines
// nearest to it, as a diff) and that nothing of it was applied; a diff that
// could not be read gets its line, what to write instead and the smallest
// correct diff.
func Feedback(results []step.Result) []byte {
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteByte('\n')
		}
		writeResult(&b, r)
	}
	return []byte(b.String())
}

func writeResult(b *strings.Builder, r step.Result) {
	if r.Step == nil && r.ParseErr != nil {
		e := r.ParseErr
		fmt.Fprintf(b, "error: corrupt patch at line %d: %s\n", e.Pos.Line, e.Msg)
		if e.Quote != "" {
			fmt.Fprintf(b, "near: %s\n", e.Quote)
		}
		if e.Fix != "" {
			fmt.Fprintf(b, "hint: %s\n", e.Fix)
		}
		b.WriteString("Nothing of this diff was applied.\n")
		b.WriteString(Example)
		return
	}
	var files []File
	line := 0
	if r.Step != nil {
		line = r.Step.Pos.Line
		if src, ok := r.Step.Source.(Source); ok {
			files = src.Files
		} else {
			files = filesOf(r.Step.Ops)
		}
	}
	switch r.Status {
	case step.StatusApplied:
		for _, f := range files {
			switch f.Verb {
			case "patched":
				fmt.Fprintf(b, "Applied patch to '%s' cleanly.\n", f.Path)
			case "renamed":
				fmt.Fprintf(b, "Applied patch: renamed '%s' to '%s'.\n", f.From, f.Path)
			default:
				fmt.Fprintf(b, "Applied patch: %s '%s'.\n", f.Verb, f.Path)
			}
		}
		writeNotes(b, r)
	case step.StatusUnchanged:
		if step.StepOutcome(r) == step.OutcomeNoOp {
			b.WriteString("The diff changes nothing: its removed and added lines are equal. Nothing was changed.\n")
		} else {
			b.WriteString("The diff is already applied: nothing was changed.\n")
		}
		writeNotes(b, r)
	case step.StatusPlanned:
		fmt.Fprintf(b, "Dry run: the diff at line %d would apply.\n", line)
	case step.StatusSkipped:
		fmt.Fprintf(b, "Not applied: the diff at line %d was not attempted, since an earlier block failed.\n", line)
	case step.StatusRolledBack:
		fmt.Fprintf(b, "Rolled back: the diff at line %d applied, then was taken back because another block of the answer failed.\n", line)
	default:
		what := "error: patch failed"
		if r.Class == step.ClassRefused {
			what = "error: patch refused by the repository's safety policy"
		}
		fmt.Fprintf(b, "%s (diff at line %d): %s\n", what, line, r.Error)
		if r.Hint != "" {
			fmt.Fprintf(b, "hint: %s\n", r.Hint)
		}
		for _, op := range r.Ops {
			if op.Status == step.StatusRolledBack {
				fmt.Fprintf(b, "taken back: %s %s, which had applied\n", op.Kind, op.Path)
			}
		}
		b.WriteString("Nothing of this diff was applied: fix it and send the whole diff again. Hunks are placed by their lines, not their numbers: give enough context lines to make each hunk unique.\n")
	}
}

// writeNotes adds what the model should know of a diff that applied:
// hunks already applied, no-op hunks.
func writeNotes(b *strings.Builder, r step.Result) {
	for _, op := range r.Ops {
		if op.Kind == step.OpReplace && op.Message != "" && op.Message != "replaced" {
			fmt.Fprintf(b, "note: %s: %s\n", op.Path, op.Message)
		}
	}
}

// Example is the smallest correct diff, shown with an error of reading.
const Example = "A correct diff looks like this (line numbers are not needed: @@ ... @@ will do):\n" +
	"```diff\n--- a/path/to/file.py\n+++ b/path/to/file.py\n@@ ... @@\n def f():\n-    return 1\n+    return 2\n```\n"

// filesOf is the summary of a step that came from no diff (a step of
// another reader answered in this format).
func filesOf(ops []step.Op) []File {
	var fs []File
	for _, op := range ops {
		switch op.Kind {
		case step.OpWrite:
			fs = append(fs, File{Verb: "created", Path: op.Path})
		case step.OpDelete:
			fs = append(fs, File{Verb: "deleted", Path: op.Path})
		case step.OpMove:
			fs = append(fs, File{Verb: "renamed", Path: op.To, From: op.Path})
		case step.OpReplace, step.OpAppend:
			fs = append(fs, File{Verb: "patched", Path: op.Path})
		}
	}
	return fs
}
