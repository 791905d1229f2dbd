package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"io"
)

// Supported MCP protocol versions, newest first. A client asking for one of
// them gets it; any other gets the newest.
var protocolVersions = []string{"2025-06-18", "2025-03-26", "2024-11-05"}

// Server serves the FlyCode tools over MCP: JSON-RPC 2.0 messages, one per
// line, on a reader and a writer (standard input and output for `autocoder
// mcp`). It follows the MCP specification rather than the FlyCode
// reference: tool failures are results with isError true, and tool names
// use "_" (fs_read), which clients accept; the dotted names work too.
type Server struct {
	// Apply runs one tools/call step (the engine: one commit for a write)
	// and returns its result.
	Apply func(*step.Step) step.Result
	// Version is reported as serverInfo.version.
	Version string
}

type rpcIn struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type rpcOut struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcErr         `json:"error,omitempty"`
}

type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type callResult struct {
	Content []content `json:"content"`
	IsError bool      `json:"isError"`
}

// Serve answers requests until r ends. Notifications get no answer.
func (s *Server) Serve(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if out, ok := s.handle(line); ok {
			if err := enc.Encode(out); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

func (s *Server) handle(line []byte) (rpcOut, bool) {
	var in rpcIn
	if err := json.Unmarshal(line, &in); err != nil {
		return rpcOut{JSONRPC: "2.0", ID: null, Error: &rpcErr{Code: -32700, Message: "parse error: " + err.Error()}}, true
	}
	if len(in.ID) == 0 {
		return rpcOut{}, false // a notification, such as notifications/initialized
	}
	out := rpcOut{JSONRPC: "2.0", ID: in.ID}
	if in.JSONRPC != "2.0" {
		out.Error = &rpcErr{Code: -32600, Message: `invalid request: jsonrpc must be "2.0"`}
		return out, true
	}
	switch in.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(in.Params, &p)
		v := protocolVersions[0]
		for _, known := range protocolVersions {
			if p.ProtocolVersion == known {
				v = known
			}
		}
		out.Result = map[string]any{
			"protocolVersion": v,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
			"serverInfo":      map[string]any{"name": "autocoder", "version": s.Version},
			"instructions":    "Each write tool call becomes one commit on the autocoder work branch; paths are relative to the repository root or absolute inside it.",
		}
	case "ping":
		out.Result = map[string]any{}
	case "tools/list":
		out.Result = map[string]any{"tools": Tools(true)}
	case "tools/call":
		out.Result = s.call(in)
	default:
		out.Error = &rpcErr{Code: -32601, Message: "method not found: " + in.Method}
	}
	return out, true
}

// call reads the tools/call through the dialect's own reader, so that the
// argument contracts are the same as in a response, and applies it.
func (s *Server) call(in rpcIn) callResult {
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": in.ID, "method": "tools/call", "params": in.Params})
	items := Parse([]byte("```mcp-request\n" + string(req) + "\n```\n"))
	if len(items) != 1 {
		return errorResult("the request could not be read")
	}
	if pe := items[0].Err; pe != nil {
		msg := pe.Msg
		if pe.Hint != "" {
			msg += "\nhint: " + pe.Hint
		}
		return errorResult("INVALID_INPUT: " + msg)
	}
	r := s.Apply(items[0].Step)
	if r.Status == step.StatusFailed {
		e := ErrorFor(r)
		msg := e.Message
		if e.Data.Hint != "" {
			msg += "\nhint: " + e.Data.Hint
		}
		if e.Data.AppCode != "" {
			msg = e.Data.AppCode + ": " + msg
		}
		return errorResult(msg)
	}
	src, _ := items[0].Step.Source.(*Request)
	if src == nil {
		src = &Request{}
	}
	text := resultText(r, src)
	if r.Commit != "" {
		text += fmt.Sprintf("\ncommit %s", r.Commit)
	}
	return callResult{Content: []content{{Type: "text", Text: text}}}
}

func errorResult(msg string) callResult {
	return callResult{Content: []content{{Type: "text", Text: msg}}, IsError: true}
}
