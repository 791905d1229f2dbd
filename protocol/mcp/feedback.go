package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"strings"
)

// ProtocolVersion is the MCP version initialize answers with.
const ProtocolVersion = "2024-11-05"

// Feedback writes the executor's answer to the mcp requests among results:
// one ```mcp-response block per request, in order, holding a JSON-RPC 2.0
// response with the request's id. Results of other dialects are left out
// (their own writers answer them).
//
//   - initialize answers protocolVersion, serverInfo and capabilities;
//     tools/list answers the twelve tools with their input schemas.
//   - A write answers the text WRITE_SUCCESS (fs.writeBatch:
//     WRITE_BATCH_SUCCESS); a read answers its output; a program answers
//     its exit code, stdout and stderr; a --dry-run write answers
//     DRY_RUN with the diff it would make. result.meta carries the step id,
//     the commit, the status, op messages and the repairs the reader made.
//   - A failure answers a JSON-RPC error: see ErrorFor for the app codes.
func Feedback(results []step.Result) []byte {
	var out bytes.Buffer
	for _, r := range results {
		resp, ok := response(r)
		if !ok {
			continue
		}
		if out.Len() > 0 {
			out.WriteByte('\n')
		}
		out.WriteString("```mcp-response\n")
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false) // keep <, > and & readable in file content
		if err := enc.Encode(resp); err != nil {
			// Every value here is a string, number, bool, map or slice.
			panic("mcp: encoding a response: " + err.Error())
		}
		out.WriteString("```\n")
	}
	return out.Bytes()
}

// rpcResponse is a JSON-RPC 2.0 response.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// RPCError is a JSON-RPC error object as the reference writes it.
type RPCError struct {
	Code    int       `json:"code"`
	Message string    `json:"message"`
	Data    ErrorData `json:"data"`
}

// ErrorData is the data member of an error: the reference's app code, and
// what autocoder adds for the reader (a model, often).
type ErrorData struct {
	AppCode string `json:"appCode"`
	Hint    string `json:"hint,omitempty"`
	StepID  string `json:"stepId,omitempty"`
	Line    int    `json:"line,omitempty"`   // of the request's block, for INVALID_INPUT
	Column  int    `json:"column,omitempty"` // in characters
	Quote   string `json:"quote,omitempty"`  // the text at line:column
	Output  string `json:"output,omitempty"` // a failed program's output
	// NotAttempted lists the operations and programs of the request that
	// were not tried, the failing one or an earlier request having failed:
	// "write b.txt", "program test".
	NotAttempted []string `json:"notAttempted,omitempty"`
	// RolledBack lists the operations of the request that were done and
	// then undone with it (a later one failed, or --atomic took the request
	// back): nothing of them remains.
	RolledBack []string `json:"rolledBack,omitempty"`
}

// rpcCodes are the reference's JSON-RPC codes for its app codes; any other
// app code is -32000.
var rpcCodes = map[string]int{
	CodeInvalidInput: -32602,
	CodeForbidden:    -32003,
	CodeNotFound:     -32004,
	CodeUnauthorized: -32001,
}

// RPCCode returns the JSON-RPC error code of an app code.
func RPCCode(appCode string) int {
	if c, ok := rpcCodes[appCode]; ok {
		return c
	}
	return -32000
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolResult struct {
	Content []content      `json:"content"`
	Meta    map[string]any `json:"meta"`
}

func response(r step.Result) (rpcResponse, bool) {
	var req *Request
	switch {
	case r.ParseErr != nil && r.ParseErr.Dialect == Dialect:
		req, _ = r.ParseErr.Source.(*Request)
	case r.Step != nil && r.Step.Dialect == Dialect:
		req, _ = r.Step.Source.(*Request)
		if req == nil {
			// A step built elsewhere: its id is the step's.
			id, _ := json.Marshal(r.Step.ID)
			req = &Request{ID: id, Method: "tools/call"}
		}
	default:
		return rpcResponse{}, false
	}
	if req == nil {
		req = &Request{ID: null}
	}
	resp := rpcResponse{JSONRPC: "2.0", ID: req.ID}
	if len(resp.ID) == 0 {
		resp.ID = null
	}
	if e := ErrorFor(r); e != nil {
		resp.Error = e
		return resp, true
	}
	switch req.Method {
	case "initialize":
		resp.Result = map[string]any{
			"protocolVersion": ProtocolVersion,
			"serverInfo":      map[string]any{"name": "autocoder"},
			"capabilities":    map[string]any{"tools": map[string]any{}},
		}
		return resp, true
	case "tools/list":
		resp.Result = map[string]any{"tools": Tools(false)}
		return resp, true
	}
	resp.Result = toolResult{Content: []content{{Type: "text", Text: resultText(r, req)}}, Meta: meta(r)}
	return resp, true
}

func resultText(r step.Result, req *Request) string {
	if len(r.Programs) > 0 {
		var b strings.Builder
		for _, p := range r.Programs {
			fmt.Fprintf(&b, "exit code: %d\n", p.ReturnCode)
			if p.Status != step.ProgramSuccess && p.Status != step.ProgramFailure && p.Status != "" {
				// -1 alone does not tell a timeout from a program still
				// running or one stopped: the status line does.
				fmt.Fprintf(&b, "status: %s", p.Status)
				if p.Error != "" {
					fmt.Fprintf(&b, ": %s", p.Error)
				}
				b.WriteByte('\n')
			}
			if p.Stdout != "" {
				b.WriteString("--- stdout\n" + p.Stdout)
				if !strings.HasSuffix(p.Stdout, "\n") {
					b.WriteByte('\n')
				}
			}
			if p.Stderr != "" {
				b.WriteString("--- stderr\n" + p.Stderr)
				if !strings.HasSuffix(p.Stderr, "\n") {
					b.WriteByte('\n')
				}
			}
		}
		return b.String()
	}
	if r.Step != nil && r.Step.WritesFiles() {
		if r.Status == step.StatusPlanned {
			var b strings.Builder
			b.WriteString("DRY_RUN: nothing was written")
			for _, op := range r.Ops {
				if op.Diff != "" {
					b.WriteString("\n" + op.Diff)
				}
			}
			return b.String()
		}
		if req.Tool == "fs.writeBatch" {
			return "WRITE_BATCH_SUCCESS"
		}
		return "WRITE_SUCCESS"
	}
	var b strings.Builder
	for _, op := range r.Ops {
		b.WriteString(op.Output)
	}
	return b.String()
}

func meta(r step.Result) map[string]any {
	m := map[string]any{"stepId": r.StepID, "status": string(r.Status)}
	if r.Commit != "" {
		m["commit"] = r.Commit
	}
	var msgs []string
	for _, op := range r.Ops {
		if op.Message != "" {
			msgs = append(msgs, op.Message)
		}
		// An edit that changed nothing says why: sent twice, or old and
		// new texts equal.
		for _, rr := range op.Replaces {
			switch {
			case rr.NoOp:
				msgs = append(msgs, fmt.Sprintf("%s: edit %d is a no-op: the old and new texts are equal, nothing changed", op.Path, rr.Index+1))
			case rr.AlreadyApplied:
				msgs = append(msgs, fmt.Sprintf("%s: edit %d was already applied: nothing changed", op.Path, rr.Index+1))
			}
		}
	}
	if msgs != nil {
		m["messages"] = msgs
	}
	if r.Step != nil && len(r.Step.Repairs) > 0 {
		var reps []string
		for _, rp := range r.Step.Repairs {
			reps = append(reps, fmt.Sprintf("line %d: %s", rp.Pos.Line, rp.What))
		}
		m["repairs"] = reps
	}
	for _, p := range r.Programs {
		m["exitCode"] = p.ReturnCode
		m["runtime"] = p.Runtime
		if p.Status != "" {
			m["programStatus"] = p.Status
		}
	}
	return m
}

// ErrorFor returns the JSON-RPC error that answers a result, or nil when
// the result is a success. The app code is decided from the result's class
// and reason (never from its message), in this order:
//   - ParseErr set: INVALID_INPUT, with the block's line and column;
//   - Status skipped: NOT_EXECUTED (an earlier step failed; -32000);
//   - class precondition (in MCP only expectedSha256): CONFLICT;
//   - a refusal the model can correct (step.Correctable: a placeholder
//     for code left out, a path git ignores): INVALID_INPUT;
//   - class refused (the safety policy): POLICY_BLOCKED when the step runs
//     a program or a program was refused, else FORBIDDEN;
//   - reason not_found: NOT_FOUND; exists: CONFLICT;
//   - any other class but internal (the op as written: usage, wrong kind,
//     no match, ambiguous): INVALID_INPUT;
//   - internal: INTERNAL_ERROR.
func ErrorFor(r step.Result) *RPCError {
	// There is no edit tool in this dialect: a write refused for leaving
	// code out is done again whole.
	r = step.Rehinted(r, step.ReasonLosesCode, "this dialect has no edit tool: fs.read the file (includeMeta gives its sha256), "+
		"then fs.write it whole (mode overwrite) with nothing left out, passing that sha256 as expectedSha256")
	if r.ParseErr != nil {
		// The quote goes in data rather than in the message, where JSON
		// would escape its quotes twice.
		pe := r.ParseErr
		return &RPCError{Code: RPCCode(CodeInvalidInput), Message: fmt.Sprintf("line %d, column %d: %s", pe.Pos.Line, pe.Pos.Col, pe.Msg),
			Data: ErrorData{AppCode: CodeInvalidInput, Hint: pe.Fix, Line: pe.Pos.Line, Column: pe.Pos.Col, Quote: pe.Quote}}
	}
	switch r.Status {
	case step.StatusSkipped:
		msg := "not executed: an earlier step failed"
		if r.Error != "" {
			msg += ": " + r.Error
		}
		return &RPCError{Code: RPCCode(CodeNotExecuted), Message: msg,
			Data: ErrorData{AppCode: CodeNotExecuted, StepID: r.StepID, Hint: "fix the failed request first, then send this one again",
				NotAttempted: notAttempted(r)}}
	case step.StatusFailed:
	default:
		// A program the policy refused was not run, though its step is
		// not failed (any file operation of it applied): the request did
		// not do what it asked.
		for _, p := range r.Programs {
			if p.Status == step.ProgramRefused {
				return &RPCError{Code: RPCCode(CodePolicyBlocked), Message: p.Error,
					Data: ErrorData{AppCode: CodePolicyBlocked, StepID: r.StepID, Hint: p.Hint}}
			}
		}
		return nil
	}
	msg, hint := r.Error, r.Hint
	for _, op := range r.Ops {
		if op.Error != "" {
			if msg == "" {
				msg = op.Error
			}
			if hint == "" {
				hint = op.Hint
			}
		}
	}
	if msg == "" {
		msg = "the step failed"
	}
	code := CodeInternal
	refused := false
	for _, p := range r.Programs {
		refused = refused || p.Status == step.ProgramRefused
	}
	switch {
	case r.Class == step.ClassPrecondition:
		code = CodeConflict
	case step.Correctable(r):
		code = CodeInvalidInput // the model can send it differently: not FORBIDDEN's "do not retry"
	case r.Class == step.ClassRefused && (refused || (r.Step != nil && len(r.Step.Programs) > 0)):
		code = CodePolicyBlocked
	case r.Class == step.ClassRefused:
		code = CodeForbidden
	case r.Reason == step.ReasonNotFound:
		code = CodeNotFound
	case r.Reason == step.ReasonExists:
		code = CodeConflict
	case r.Class != step.ClassInternal:
		code = CodeInvalidInput
	}
	e := &RPCError{Code: RPCCode(code), Message: msg, Data: ErrorData{AppCode: code, Hint: hint, StepID: r.StepID}}
	var out strings.Builder
	for _, p := range r.Programs {
		out.WriteString(p.Stdout)
		out.WriteString(p.Stderr)
		if msg == "the step failed" && p.Error != "" && p.Status != step.ProgramNotAttempted {
			e.Message = p.Error
		}
	}
	e.Data.Output = out.String()
	e.Data.NotAttempted = notAttempted(r)
	e.Data.RolledBack = opsWith(r, step.StatusRolledBack)
	return e
}

// opsWith names the ops of r whose status is s: "write b.txt".
func opsWith(r step.Result, s step.Status) []string {
	var out []string
	for _, op := range r.Ops {
		if op.Status == s {
			out = append(out, strings.TrimSpace(string(op.Kind)+" "+op.Path))
		}
	}
	return out
}

// notAttempted names the ops and programs of r that were not tried.
func notAttempted(r step.Result) []string {
	out := opsWith(r, step.StatusSkipped)
	for _, p := range r.Programs {
		if p.Status == step.ProgramNotAttempted {
			out = append(out, "program "+p.Name)
		}
	}
	return out
}
