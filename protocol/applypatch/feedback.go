package applypatch

import (
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/protocol/reply"
	"github.com/autocoder/autocoder/step"
)

// Feedback answers as the apply_patch tool answers the model (Codex): a
// patch that applied gets "Success. Updated the following files:" and one
// line per file with its letter (A added, M modified, D deleted); a patch
// that failed says why, with the hint (for a chunk that was not found, the
// file's real lines nearest to it as a diff), and that no file was changed;
// a patch that could not be read says where and what to write instead.
func Feedback(results []step.Result) []byte { return reply.Feedback(results, words) }

// words are the apply_patch tool's (Codex's) answers.
var words = reply.Words{
	Unreadable: "Invalid patch (line %d): %s\n",
	NotRead:    "No files were modified by this patch.\n",
	Example:    Example,
	Applied: func(b *strings.Builder, r step.Result, _ int) {
		b.WriteString("Success. Updated the following files:\n")
		writeFiles(b, r)
	},
	NoOp:    "Success, but no file changed: the patch's removed and added lines are equal, so it changes nothing.\n",
	Already: "Success. No file changed: the patch is already applied.\n",
	Planned: func(b *strings.Builder, r step.Result, _ int) {
		b.WriteString("Dry run: the patch would update the following files:\n")
		writeFiles(b, r)
	},
	Skipped: func(b *strings.Builder, r step.Result, line int) {
		fmt.Fprintf(b, "Not applied (patch at line %d): an earlier patch failed, so this one was not attempted.\n", line)
		if r.Error != "" {
			fmt.Fprintf(b, "%s\n", r.Error)
		}
	},
	RolledBack: "Rolled back (patch at line %d): it applied, then was taken back because another patch of the answer failed; no file was changed.\n",
	Failed:     "Failed to apply: the patch at line %d: %s\n",
	Refused:    "Refused (the repository's safety policy): the patch at line %d: %s\n",
	Retry:      "No files were modified by this patch: fix it and send the whole patch again.\n",
}

// writeFiles writes a line per file of the patch, with its letter.
func writeFiles(b *strings.Builder, r step.Result) {
	var files []File
	if r.Step != nil {
		if src, ok := r.Step.Source.(Source); ok {
			files = src.Files
		} else {
			files = filesOf(r.Step.Ops)
		}
	}
	for _, f := range files {
		fmt.Fprintf(b, "%s %s\n", f.Letter, f.Path)
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
