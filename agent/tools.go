package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// run --tools: the model is offered functions through the chat API's
// function calling, as the peers' agents offer them (Codex's apply_patch,
// Anthropic's str_replace_based_edit_tool), instead of being taught a text
// dialect. Each call becomes steps through the same readers a pasted
// answer goes through (the patch and the editor command are read by
// protocol's apply_patch and editor-json readers), is applied by the same
// engine call, and is answered by a tool message in that format's words.

// ToolCall is one function call of an answer: its id, the function's name
// and its arguments (JSON, as the model wrote them).
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// The functions offered. run_program is offered only where the policy
// allows programs (Config.Programs): a model is not told of a tool that
// would only be refused.
const (
	toolPatch   = "apply_patch"
	toolEditor  = "str_replace_based_edit_tool"
	toolRead    = "read_file"
	toolProgram = "run_program"
	toolFinish  = "finish"
)

// toolDefs are the function definitions sent with every request of a run
// with tools.
func toolDefs(programs bool) []openai.ChatCompletionToolUnionParam {
	obj := func(required []string, props map[string]any) shared.FunctionParameters {
		return shared.FunctionParameters{"type": "object", "properties": props, "required": required}
	}
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	defs := []shared.FunctionDefinitionParam{
		{Name: toolPatch, Description: openai.String("Apply a patch in the apply_patch (V4A) format: *** Begin Patch, then *** Add File: / *** Update File: (with @@ anchors and ' ', '-', '+' lines) / *** Delete File: sections, then *** End Patch. The whole patch is one commit: all of it applies or none."),
			Parameters: obj([]string{"input"}, map[string]any{"input": str("the whole patch, from *** Begin Patch to *** End Patch")})},
		{Name: toolEditor, Description: openai.String("View or edit a file: command view (path, optional view_range), create (path, file_text), str_replace (path, old_str that occurs exactly once, new_str), insert (path, insert_line, new_str). Each call that changes a file is one commit; undo_edit is not offered: the user undoes commits."),
			Parameters: obj([]string{"command", "path"}, map[string]any{
				"command":     map[string]any{"type": "string", "enum": []string{"view", "create", "str_replace", "insert"}},
				"path":        str("the file's path, relative to the repository root"),
				"file_text":   str("create: the whole content"),
				"old_str":     str("str_replace: the exact text to replace; it must occur exactly once"),
				"new_str":     str("str_replace, insert: the new text"),
				"insert_line": map[string]any{"type": "integer", "description": "insert: the line after which new_str goes (0: the start)"},
				"view_range":  map[string]any{"type": "array", "items": map[string]any{"type": "integer"}, "description": "view: [first, last] lines"},
			})},
		{Name: toolRead, Description: openai.String("Read a file, or list a folder's tree (a path ending in /; . is the root)."),
			Parameters: obj([]string{"path"}, map[string]any{"path": str("relative to the repository root; . is the root")})},
		{Name: toolFinish, Description: openai.String("End the task: say what you did and how to use it. Call it alone, once the task is done."),
			Parameters: obj([]string{"summary"}, map[string]any{"summary": str("what was done, for the user")})},
	}
	if programs {
		defs = append(defs, shared.FunctionDefinitionParam{Name: toolProgram,
			Description: openai.String("Run a command line in the repository root (tests, a build). Files it changes are committed after it."),
			Parameters: obj([]string{"command"}, map[string]any{"command": str("one shell command line"),
				"timeout": map[string]any{"type": "integer", "description": "seconds before it is stopped"}})})
	}
	out := make([]openai.ChatCompletionToolUnionParam, len(defs))
	for i, d := range defs {
		out[i] = openai.ChatCompletionFunctionTool(d)
	}
	return out
}

// callSteps reads one call into items, as its format's reader reads it;
// a call that cannot be read is one item with its error, answered in the
// tool message.
func callSteps(c ToolCall) []step.Item {
	bad := func(msg, fix string) []step.Item {
		return []step.Item{{Err: &step.ParseError{Dialect: "tool", Msg: fmt.Sprintf("the %s call %s: %s", c.Name, c.ID, msg), Fix: fix}}}
	}
	var args struct {
		Input   string `json:"input"`
		Path    string `json:"path"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	}
	if c.Name != toolEditor {
		if err := json.Unmarshal([]byte(c.Arguments), &args); err != nil {
			return bad("its arguments are not a JSON object: "+err.Error(), "send the call again with arguments as the function's schema says")
		}
	}
	switch c.Name {
	case toolPatch:
		items := protocol.Parse([]byte(args.Input))
		if len(items) == 0 {
			return bad("input holds no patch", "input must be the whole patch, from *** Begin Patch to *** End Patch")
		}
		return items
	case toolEditor:
		// The arguments are the editor command as a JSON object: the
		// editor-json reader reads them as it reads one written in text.
		items := protocol.Parse([]byte(c.Arguments))
		if len(items) == 0 {
			return bad("its arguments are not an editor command", `give "command" (view, create, str_replace, insert) and "path"`)
		}
		return items
	case toolRead:
		if args.Path == "" {
			return bad("no path", `give "path"`)
		}
		kind := step.OpRead
		if strings.HasSuffix(args.Path, "/") || args.Path == "." {
			kind = step.OpList
		}
		return []step.Item{{Step: &step.Step{ID: c.ID, Dialect: "tool", Ops: []step.Op{{Kind: kind, Path: args.Path}}}}}
	case toolProgram:
		if strings.TrimSpace(args.Command) == "" {
			return bad("no command", `give "command"`)
		}
		p := step.Program{Name: c.ID, Command: args.Command, Shell: true}
		if args.Timeout > 0 {
			p.Timeout = time.Duration(args.Timeout) * time.Second
		}
		return []step.Item{{Step: &step.Step{ID: c.ID, Dialect: "tool", Reason: "run " + args.Command, Programs: []step.Program{p}}}}
	}
	return bad("there is no such function", "call one of the functions offered")
}

// runCalls applies the calls of one answer in order, each through its own
// engine run (one call, one commit or none), and answers each with a tool
// message. The first call that fails stops the answer: the calls after it
// are not attempted, and their messages say so.
func runCalls(ctx context.Context, e Engine, calls []ToolCall) (results []step.Result, answers []Message, finish *string) {
	failed := ""
	for _, c := range calls {
		msg := Message{Role: "tool", ToolCallID: c.ID}
		switch {
		case failed != "":
			msg.Content = fmt.Sprintf("Not attempted: the call %s before it failed, so nothing of this call was applied. Send it again once that is fixed, if it still applies.", failed)
		case c.Name == toolFinish:
			var args struct {
				Summary string `json:"summary"`
			}
			json.Unmarshal([]byte(c.Arguments), &args)
			s := args.Summary
			finish = &s
			msg.Content = "Finished."
		default:
			rs := e.Run(ctx, callSteps(c), txn.RunOptions{UndoOnCancel: true})
			results = append(results, rs...)
			msg.Content = strings.TrimSpace(string(protocol.Feedback(rs)))
			if msg.Content == "" {
				msg.Content = "Done: nothing to report."
			}
			for _, r := range rs {
				if r.Status == step.StatusFailed {
					failed = c.ID
				}
			}
		}
		answers = append(answers, msg)
	}
	return results, answers, finish
}

// toolCalls assembles a stream's tool-call deltas: the first delta of a
// call (by index) names it, the rest append to its arguments.
type toolCalls struct {
	calls []ToolCall
	size  int64 // bytes of arguments so far, counted against the answer's cap
}

func (t *toolCalls) add(ds []openai.ChatCompletionChunkChoiceDeltaToolCall) {
	for _, d := range ds {
		i := int(d.Index)
		if i < 0 || i > len(t.calls) {
			i = len(t.calls) // a server that numbers calls oddly: a new call
		}
		if i == len(t.calls) {
			t.calls = append(t.calls, ToolCall{})
		}
		c := &t.calls[i]
		if d.ID != "" {
			c.ID = d.ID
		}
		if d.Function.Name != "" {
			c.Name = d.Function.Name
		}
		c.Arguments += d.Function.Arguments
		t.size += int64(len(d.Function.Arguments))
	}
}

// toolFeedback is a turn's tool messages as the run's record keeps them:
// each under the id of the call it answers.
func toolFeedback(answers []Message) string {
	var b strings.Builder
	for _, m := range answers {
		fmt.Fprintf(&b, "[%s]\n%s\n", m.ToolCallID, m.Content)
	}
	return b.String()
}
