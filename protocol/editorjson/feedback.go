package editorjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/step"
)

// toolResult is the API's tool_result block: the answer to one tool_use.
type toolResult struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id,omitempty"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error,omitempty"`
}

// example is the smallest correct call, shown when a call could not be read.
const example = `{"command": "str_replace", "path": "src/app.py", "old_str": "return a - b", "new_str": "return a + b"}`

// Feedback answers each call with a tool_result block, one JSON object per
// line, whose content is the text editor tool's own result string: "File
// created successfully at: P", "The file P has been edited.", "No
// replacement was performed, old_str … did not appear verbatim in P.", the
// numbered lines of a view; autocoder adds the commit, why a call failed and
// what to send instead, and which calls were not attempted.
func Feedback(results []step.Result) []byte {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	for _, r := range results {
		var src Source
		var content string
		isErr := false
		switch {
		case r.Step == nil && r.ParseErr != nil:
			src, _ = r.ParseErr.Source.(Source)
			isErr = true
			content = fmt.Sprintf("Error: the call at line %d could not be read: %s", r.ParseErr.Pos.Line, r.ParseErr.Msg)
			if r.ParseErr.Fix != "" {
				content += "\nhint: " + r.ParseErr.Fix
			}
			if src.Command != "undo_edit" {
				content += "\nA correct call looks like this: " + example
			}
		default:
			src, _ = r.Step.Source.(Source)
			content, isErr = answer(r, src)
		}
		enc.Encode(toolResult{Type: "tool_result", ToolUseID: src.ID, Content: content, IsError: isErr})
	}
	return out.Bytes()
}

// answer is the content of the tool_result of a step's result.
func answer(r step.Result, src Source) (string, bool) {
	p := src.Path
	if p == "" && len(r.Ops) > 0 {
		p = r.Ops[0].Path
	}
	var b strings.Builder
	isErr := false
	cmd := src.Command
	if cmd == "" {
		cmd = "the call"
	}
	switch r.Status {
	case step.StatusFailed:
		isErr = true
		switch {
		case r.Reason == step.ReasonNoMatch && src.Command == "str_replace":
			fmt.Fprintf(&b, "No replacement was performed, old_str `%s` did not appear verbatim in %s.", src.OldStr, p)
		case r.Reason == step.ReasonAmbiguous && src.Command == "str_replace":
			fmt.Fprintf(&b, "No replacement was performed. Multiple occurrences of old_str `%s` in %s. Please ensure it is unique.", src.OldStr, p)
		case r.Reason == step.ReasonExists && src.Command == "create":
			fmt.Fprintf(&b, "File already exists at: %s. Cannot overwrite files using command `create`.", p)
		case r.Class == step.ClassRefused:
			fmt.Fprintf(&b, "Error: %s on %s was refused by the safety policy; nothing was changed.", cmd, p)
		default:
			fmt.Fprintf(&b, "Error: %s failed on %s; nothing was changed.", cmd, p)
		}
		if r.Error != "" {
			fmt.Fprintf(&b, "\n%s", r.Error)
		}
		if r.Hint != "" {
			fmt.Fprintf(&b, "\nhint: %s", r.Hint)
		}
	case step.StatusSkipped:
		fmt.Fprintf(&b, "Not attempted (%s %s): an earlier call failed. Send it again after fixing that one.", cmd, p)
	case step.StatusRolledBack:
		fmt.Fprintf(&b, "Rolled back (%s %s): it applied, then a later call failed and --atomic took the whole answer back.", cmd, p)
	case step.StatusRead:
		for _, o := range r.Ops {
			if o.Kind == step.OpRead {
				b.WriteString(view(p, o.Output, src))
			}
		}
	default:
		switch src.Command {
		case "create":
			fmt.Fprintf(&b, "File created successfully at: %s", p)
		case "":
			fmt.Fprintf(&b, "%s", r.Status)
		default:
			fmt.Fprintf(&b, "The file %s has been edited.", p)
		}
		switch r.Status {
		case step.StatusApplied:
			if c := r.Commit; c != "" {
				fmt.Fprintf(&b, " (commit %s)", c[:min(12, len(c))])
			}
			if src.Command != "create" && src.Command != "" {
				b.WriteString(" Review the changes and make sure they are as expected. Edit the file again if necessary.")
			}
		case step.StatusPlanned:
			b.WriteString(" (dry run: nothing was changed)")
		case step.StatusUnchanged:
			b = strings.Builder{}
			fmt.Fprintf(&b, "No change to %s: ", p)
			if step.StepOutcome(r) == step.OutcomeNoOp {
				b.WriteString("old_str and new_str are equal (a no-op; send only edits that change something).")
			} else {
				b.WriteString("the file already holds this edit.")
			}
		}
		for _, o := range r.Ops {
			if o.Diff != "" {
				fmt.Fprintf(&b, "\n%s", o.Diff)
			}
			for _, rr := range o.Replaces {
				if rr.Tier != "" && rr.Tier != "exact" {
					fmt.Fprintf(&b, "\nNote: old_str matched lines %d-%d only with tolerance (%s); copy the file's text exactly next time.", rr.StartLine, rr.EndLine, rr.Tier)
				}
			}
		}
	}
	for _, pr := range r.Programs {
		fmt.Fprintf(&b, "\nProgram %s: %s (exit %d)", pr.Name, pr.Status, pr.ReturnCode)
		for _, s := range []struct{ k, v string }{{"stdout", pr.Stdout}, {"stderr", pr.Stderr}, {"error", pr.Error}, {"hint", pr.Hint}} {
			if s.v != "" {
				fmt.Fprintf(&b, "\n%s: %s", s.k, strings.TrimRight(s.v, "\n"))
			}
		}
	}
	return b.String(), isErr
}

// view is the tool's answer to a view: the lines numbered as cat -n
// numbers them, only those of view_range when it was given.
func view(path, content string, src Source) string {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	from, to := 1, len(lines)
	if src.ViewFrom > 0 {
		from = src.ViewFrom
	}
	if src.ViewTo > 0 && src.ViewTo < to {
		to = src.ViewTo
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Here's the result of running `cat -n` on %s:\n", path)
	for i := from; i <= to && i <= len(lines); i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i, lines[i-1])
	}
	return b.String()
}
