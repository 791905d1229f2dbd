package applypatch

import (
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/step"
)

// Feedback answers as the apply_patch tool answers the model (Codex): a
// patch that applied gets "Success. Updated the following files:" and one
// line per file with its letter (A added, M modified, D deleted); a patch
// that failed says why, with the hint (for a chunk that was not found, the
// file's real lines nearest to it as a diff), and that no file was changed;
// a patch that could not be read says where and what to write instead.
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
		fmt.Fprintf(b, "Invalid patch (line %d): %s\n", e.Pos.Line, e.Msg)
		if e.Quote != "" {
			fmt.Fprintf(b, "near: %s\n", e.Quote)
		}
		if e.Fix != "" {
			fmt.Fprintf(b, "hint: %s\n", e.Fix)
		}
		b.WriteString("No files were modified by this patch.\n")
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
		b.WriteString("Success. Updated the following files:\n")
		writeFiles(b, files)
		writeNotes(b, r)
	case step.StatusUnchanged:
		if step.StepOutcome(r) == step.OutcomeNoOp {
			b.WriteString("Success, but no file changed: the patch's removed and added lines are equal, so it changes nothing.\n")
		} else {
			b.WriteString("Success. No file changed: the patch is already applied.\n")
		}
		writeNotes(b, r)
	case step.StatusPlanned:
		b.WriteString("Dry run: the patch would update the following files:\n")
		writeFiles(b, files)
	case step.StatusSkipped:
		fmt.Fprintf(b, "Not applied (patch at line %d): an earlier patch failed, so this one was not attempted.\n", line)
		if r.Error != "" {
			fmt.Fprintf(b, "%s\n", r.Error)
		}
	case step.StatusRolledBack:
		fmt.Fprintf(b, "Rolled back (patch at line %d): it applied, then was taken back because another patch of the answer failed; no file was changed.\n", line)
	default:
		verb := "Failed to apply"
		if r.Class == step.ClassRefused {
			verb = "Refused (the repository's safety policy)"
		}
		fmt.Fprintf(b, "%s: the patch at line %d: %s\n", verb, line, r.Error)
		if r.Hint != "" {
			fmt.Fprintf(b, "hint: %s\n", r.Hint)
		}
		for _, op := range r.Ops {
			if op.Status == step.StatusRolledBack {
				fmt.Fprintf(b, "taken back: %s %s, which had applied\n", op.Kind, op.Path)
			}
		}
		b.WriteString("No files were modified by this patch: fix it and send the whole patch again.\n")
	}
}

func writeFiles(b *strings.Builder, files []File) {
	for _, f := range files {
		fmt.Fprintf(b, "%s %s\n", f.Letter, f.Path)
	}
}

// writeNotes adds what the model should know of an applied patch: chunks
// already applied, and what the engine said of each file.
func writeNotes(b *strings.Builder, r step.Result) {
	for _, op := range r.Ops {
		if op.Kind == step.OpReplace && op.Message != "" && op.Message != "replaced" {
			fmt.Fprintf(b, "note: %s: %s\n", op.Path, op.Message)
		}
	}
}

// Example is the smallest correct patch, shown with an error of reading so
// that the model sees the shape it was attempting.
const Example = "A correct patch looks like this (context lines start with a space, removed ones with -, added ones with +):\n" +
	"*** Begin Patch\n*** Update File: path/to/file.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch\n"

// filesOf is the summary of a step that came from no patch (a step of
// another reader answered in this format): a letter per file op.
func filesOf(ops []step.Op) []File {
	var fs []File
	for _, op := range ops {
		switch op.Kind {
		case step.OpWrite:
			fs = append(fs, File{"A", op.Path})
		case step.OpDelete:
			fs = append(fs, File{"D", op.Path})
		case step.OpMove:
			fs = append(fs, File{"M", op.To})
		case step.OpReplace, step.OpAppend:
			fs = append(fs, File{"M", op.Path})
		}
	}
	return fs
}
