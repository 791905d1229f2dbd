package protocol

import (
	"github.com/autocoder/autocoder/protocol/acjson"
	"github.com/autocoder/autocoder/protocol/applypatch"
	"github.com/autocoder/autocoder/protocol/axon"
	"github.com/autocoder/autocoder/protocol/editorjson"
	"github.com/autocoder/autocoder/protocol/mcp"
	"github.com/autocoder/autocoder/protocol/searchreplace"
	"github.com/autocoder/autocoder/protocol/udiff"
	"github.com/autocoder/autocoder/protocol/wholefile"
	"github.com/autocoder/autocoder/step"
)

// writers are the feedback writers by dialect name (step.Step.Dialect).
var writers = map[string]func([]step.Result) []byte{
	"autocoder-json": acjson.Feedback,
	"axon":           axon.Feedback,
	"mcp":            mcp.Feedback,
	// The edit formats of FORMATS.md, each answered in its tool's words.
	applypatch.Dialect:    applypatch.Feedback,
	searchreplace.Dialect: searchreplace.Feedback,
	udiff.Dialect:         udiff.Feedback,
	wholefile.Dialect:     wholefile.Feedback,
	editorjson.Dialect:    editorjson.Feedback,
}

// Feedback writes the executor's answer to a run in the dialect of each
// step: consecutive results of one dialect form one answer in that dialect,
// so a mixed response gets each part answered in its own format, in order.
// A result of an unreadable block is answered in the dialect of its block.
//
// With no result at all (a response in which nothing could be read, not
// even an unreadable block) the answer says what autocoder reads, with the
// smallest correct example of each format: an empty answer would leave the
// model nothing to act on.
func Feedback(results []step.Result) []byte {
	if len(results) == 0 {
		return []byte(NothingRead)
	}
	var out []byte
	var run []step.Result
	cur := ""
	flush := func() {
		if len(run) == 0 {
			return
		}
		w, ok := writers[cur]
		if !ok {
			w = axon.Feedback
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(out, w(run)...)
		run = nil
	}
	for _, r := range results {
		d := ""
		switch {
		case r.Step != nil:
			d = r.Step.Dialect
		case r.ParseErr != nil:
			d = r.ParseErr.Dialect
		}
		if d != cur {
			flush()
			cur = d
		}
		run = append(run, r)
	}
	flush()
	return out
}

// Reads names what autocoder reads, for hints: one sentence.
const Reads = "autocoder reads a #####-- block (autocoder JSON), a ```mcp-request fence (FlyCode MCP), " +
	"a ~~~~~act fence (Axon), an apply_patch patch (*** Begin Patch … *** End Patch), " +
	"a unified diff (```diff fence or diff --git), SEARCH/REPLACE blocks (aider's <<<<<<< SEARCH under the file's path, " +
	"Cline's <replace_in_file>, Roo's <apply_diff>), a text-editor tool call as JSON ({\"command\": \"str_replace\", …}) " +
	"and a whole file (a fence with the file's path on the line right above it; a fence without one is an example)"

// NothingRead is the answer to a response in which no block could be found:
// what autocoder reads, and the smallest correct example of each edit
// format (the one the model attempted, had it been recognisable, would have
// been answered by its reader as an unreadable block instead).
const NothingRead = "No instruction block was found in your answer, so nothing was changed.\n" +
	Reads + ".\n\n" +
	"The smallest correct edit in each format, changing line \"x = 1\" of app.py to \"x = 2\":\n\n" +
	"apply_patch:\n*** Begin Patch\n*** Update File: app.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n\n" +
	"unified diff:\n```diff\n--- a/app.py\n+++ b/app.py\n@@ ... @@\n-x = 1\n+x = 2\n```\n\n" +
	"SEARCH/REPLACE:\napp.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\n" +
	"text-editor call:\n{\"command\": \"str_replace\", \"path\": \"app.py\", \"old_str\": \"x = 1\", \"new_str\": \"x = 2\"}\n\n" +
	"autocoder JSON:\n#####--\n{\"file_operations\": [{\"action_type\": \"replace_file\", \"path\": \"app.py\", " +
	"\"modify_content\": [{\"old_content\": \"x = 1\", \"new_content\": \"x = 2\"}]}]}\n--#####\n"
