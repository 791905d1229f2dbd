package udiff

import (
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/protocol/reply"
	"github.com/autocoder/autocoder/step"
)

// Feedback answers as git apply -v does: each file of a diff that applied
// ("Applied patch to 'a.py' cleanly."), or the error of the diff that failed
// with the hint (for a hunk that was not found, the file's real lines
// nearest to it, as a diff) and that nothing of it was applied; a diff that
// could not be read gets its line, what to write instead and the smallest
// correct diff.
func Feedback(results []step.Result) []byte { return reply.Feedback(results, words) }

// words are git apply's answers.
var words = reply.Words{
	Unreadable: "error: corrupt patch at line %d: %s\n",
	NotRead:    "Nothing of this diff was applied.\n",
	Example:    Example,
	Applied: func(b *strings.Builder, r step.Result, _ int) {
		for _, f := range filesOfResult(r) {
			switch f.Verb {
			case "patched":
				fmt.Fprintf(b, "Applied patch to '%s' cleanly.\n", f.Path)
			case "renamed":
				fmt.Fprintf(b, "Applied patch: renamed '%s' to '%s'.\n", f.From, f.Path)
			default:
				fmt.Fprintf(b, "Applied patch: %s '%s'.\n", f.Verb, f.Path)
			}
		}
	},
	NoOp:    "The diff changes nothing: its removed and added lines are equal. Nothing was changed.\n",
	Already: "The diff is already applied: nothing was changed.\n",
	Planned: func(b *strings.Builder, _ step.Result, line int) {
		fmt.Fprintf(b, "Dry run: the diff at line %d would apply.\n", line)
	},
	Skipped: func(b *strings.Builder, _ step.Result, line int) {
		fmt.Fprintf(b, "Not applied: the diff at line %d was not attempted, since an earlier block failed.\n", line)
	},
	RolledBack: "Rolled back: the diff at line %d applied, then was taken back because another block of the answer failed.\n",
	Failed:     "error: patch failed (diff at line %d): %s\n",
	Refused:    "error: patch refused by the repository's safety policy (diff at line %d): %s\n",
	Retry:      "Nothing of this diff was applied: fix it and send the whole diff again. Hunks are placed by their lines, not their numbers: give enough context lines to make each hunk unique.\n",
}

// filesOfResult is the files of the diff a result is of.
func filesOfResult(r step.Result) []File {
	if r.Step == nil {
		return nil
	}
	if src, ok := r.Step.Source.(Source); ok {
		return src.Files
	}
	return filesOf(r.Step.Ops)
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
