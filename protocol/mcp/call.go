package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/protocol/tjson"
	"github.com/autocoder/autocoder/step"
)

// CallError is a tool call whose arguments break the tool's contract
// (INVALID_INPUT): the same checks, messages and hints as a request in a
// response, for an MCP server's typed arguments.
type CallError struct {
	Msg, Fix string
}

func (e *CallError) Error() string { return e.Msg }

// Hint says what to write instead.
func (e *CallError) Hint() string { return e.Fix }

// Class: the arguments cannot be used as written.
func (e *CallError) Class() step.Class { return step.ClassUsage }

// ReadCall reads one MCP tools/call into a step: tool is the dotted or the
// underscore name, args the arguments object as JSON (nil or empty: no
// arguments), id the step's ID (its commit trailer). It applies the
// argument contracts of the tool table, as Parse does for a request in a
// response, without a response around it. An unknown tool or arguments
// that are not an object are a *CallError too; an MCP server answers those
// as protocol errors before it calls ReadCall.
func ReadCall(id, tool string, args []byte) (*step.Step, error) {
	spec, ok := lookupTool(tool)
	if !ok {
		return nil, &CallError{Msg: fmt.Sprintf("unknown tool %q", tool), Fix: "the tools are " + toolNames()}
	}
	if len(args) == 0 {
		args = []byte("{}")
	}
	n, end, err := tjson.ParseNodeStrict(args, tjson.Pos{Line: 1, Col: 1})
	if err != nil || len(bytes.TrimSpace(args[end:])) > 0 {
		return nil, &CallError{Msg: "the arguments are not valid JSON", Fix: "send the arguments as a JSON object"}
	}
	d := newDoc(args)
	root := buildTree(n)
	if root.kind != tjson.Object {
		return nil, &CallError{Msg: fmt.Sprintf("the arguments are %s, not an object", root.kindName()),
			Fix: "arguments is an object, even when empty: {}"}
	}
	idJSON, _ := json.Marshal(id)
	st := &step.Step{ID: id, Dialect: Dialect, Source: &Request{ID: idJSON, Method: "tools/call", Tool: spec.name}}
	c := &call{spec: spec, args: root, d: d}
	err = c.check(spec.args, root, spec.aliases)
	if err == nil {
		err = c.build(st, step.Pos{})
	}
	if err != nil {
		var iv *invalid
		if errors.As(err, &iv) {
			return nil, &CallError{Msg: iv.msg, Fix: iv.hint}
		}
		return nil, &CallError{Msg: err.Error()}
	}
	return st, nil
}

// CallResult is the text of an MCP tool result for a step's result, and
// whether it is an error (isError): what a response's mcp-response block
// carries, as one text a model reads. A failure starts with its app code
// (CONFLICT: …) and ends with its hint; a write answers WRITE_SUCCESS and
// its commit.
func CallResult(r step.Result) (text string, isError bool) {
	// A failed step, and a program the policy refused (its step is not
	// failed, but the call did not do what it asked), are errors, as
	// step.Judge decides for every surface; a program that ran and failed
	// is its output, with its exit code.
	v := step.Judge([]step.Result{r}, false)
	if e := ErrorFor(r); e != nil && v.Failed && v.Class != step.ClassProgramFailed {
		msg := e.Message
		// What of the call was undone, or not tried: a model must not
		// believe a file of it changed.
		if len(e.Data.RolledBack) > 0 {
			msg += "\nrolled back, not applied: " + strings.Join(e.Data.RolledBack, ", ")
		}
		if len(e.Data.NotAttempted) > 0 {
			msg += "\nnot attempted: " + strings.Join(e.Data.NotAttempted, ", ")
		}
		if e.Data.Hint != "" {
			msg += "\nhint: " + e.Data.Hint
		}
		if e.Data.AppCode != "" {
			msg = e.Data.AppCode + ": " + msg
		}
		return msg, true
	}
	src, _ := r.Step.Source.(*Request)
	if src == nil {
		src = &Request{}
	}
	text = resultText(r, src)
	if r.Commit != "" {
		text += "\ncommit " + r.Commit
	}
	if r.ProgramCommit != "" {
		text += "\nfiles the program changed: commit " + r.ProgramCommit
	}
	if r.Error != "" {
		text += "\nnote: " + r.Error
	}
	return text, false
}
