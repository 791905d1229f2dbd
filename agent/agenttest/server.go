// Package agenttest is a local OpenAI-compatible chat server for tests: it
// serves scripted answers, streamed as server-sent events or whole, and
// records every request, so a test can check the system prompt sent, the
// feedback of each turn, retries and errors. It is a real HTTP server
// (net/http/httptest), so the client library's own code runs: its retries,
// its SSE decoding, its error parsing.
//
// Start with New and Answer; cmd/autocoder's end-to-end scripts start one
// with their fakemodel command.
package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Answer is one scripted reply of the server, for one request.
type Answer struct {
	Text string
	// Status, when not 0 or 200, answers with this HTTP status and an
	// OpenAI-style error body instead of Text.
	Status int
	Code   string // the error's code, e.g. "model_not_found"
	// RetryAfterMs sets the Retry-After-Ms header of an error answer.
	RetryAfterMs int
	// CutAfter, when > 0, ends a streamed answer after this many bytes of
	// Text, without a finish_reason or [DONE]: a connection cut midway.
	CutAfter int
	// NoUsage leaves out the usage counts, as some local servers do.
	NoUsage bool
	// FinishReason is the answer's finish_reason; "" is "stop". "length"
	// is an answer the model's output limit cut.
	FinishReason string
	// Hang, with CutAfter, keeps the streamed answer open after the cut
	// instead of ending it, until the client goes away or the server
	// closes: a model still writing when the user presses Ctrl-C.
	Hang bool
	// ToolCalls are function calls the answer makes (after Text), as a
	// model does when it is offered tools; streamed, each call's
	// arguments arrive in small pieces, as real servers send them. The
	// finish_reason is then "tool_calls" unless FinishReason says.
	ToolCalls []ToolCall
	// Drip, with a streamed answer, sends Text and then, instead of
	// ending, one byte at a time (an SSE comment) until the client goes
	// away or the server closes: a server whose every byte resets the
	// client's idle timeout.
	Drip bool
	// ContentType, when set, answers with status 200, this content type
	// and Text as the body, whatever was asked: an HTML page where the API
	// should be, a JSON error where a stream was asked for.
	ContentType string
	// Before, when set, runs before the answer is sent: what the user
	// does while the model thinks (a setting changed between two turns).
	Before func()
}

// ToolCall is one function call of a scripted answer.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON, as the model writes it
}

// Request is one request the server received.
type Request struct {
	Model         string    `json:"model"`
	Stream        bool      `json:"stream"`
	IncludeUsage  bool      `json:"include_usage"`
	Messages      []Message `json:"messages"`
	Authorization string    `json:"authorization"`
	Tools         []string  `json:"tools,omitempty"` // the names of the functions offered
	// At is when the request arrived: the gaps between a run's requests
	// are its turns' time outside the model (cmd/autocoder's
	// BenchmarkRunTurn).
	At time.Time `json:"-"`
}

// Message is one message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCallID is a tool message's call id; ToolCalls the calls an
	// assistant message made (each "id name arguments").
	ToolCallID string   `json:"tool_call_id,omitempty"`
	ToolCalls  []string `json:"tool_calls,omitempty"`
}

// Server is the fake API. Its base URL for clients is URL() (".../v1").
type Server struct {
	*httptest.Server
	// mu guards what the handler reads: a test sets the key and models
	// while a client in another process may already be calling.
	mu       sync.Mutex
	key      string   // when set, the only API key accepted (others get 401)
	models   []string // when set, the only models known (others get 404)
	answers  []Answer
	requests []Request
	closing  chan struct{} // closed by Close: a hanging answer ends
	once     sync.Once
}

// Close ends the answers still hanging, then shuts the server down.
func (s *Server) Close() {
	s.once.Do(func() { close(s.closing) })
	s.Server.Close()
}

// SetKey makes key the only API key accepted; others get 401.
func (s *Server) SetKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// SetModels makes models the only models known; others get 404.
func (s *Server) SetModels(models ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = models
}

// New starts a server that answers requests with answers, in order; once
// they run out it answers "(no more scripted answers)", which holds no
// block and so ends a run.
func New(answers ...Answer) *Server {
	s := &Server{answers: answers, closing: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the base URL a client is given (OPENAI_BASE_URL).
func (s *Server) URL() string { return s.Server.URL + "/v1" }

// Requests returns a copy of the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, "not_found", "no route "+r.Method+" "+r.URL.Path, 0)
		return
	}
	var body struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "bad JSON: "+err.Error(), 0)
		return
	}
	req := Request{At: at, Model: body.Model, Stream: body.Stream, IncludeUsage: body.StreamOptions.IncludeUsage,
		Authorization: r.Header.Get("Authorization")}
	for _, m := range body.Messages {
		msg := Message{Role: m.Role, Content: content(m.Content), ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, c.ID+" "+c.Function.Name+" "+c.Function.Arguments)
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range body.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	s.mu.Lock()
	key, models := s.key, s.models
	s.requests = append(s.requests, req)
	a := Answer{Text: "(no more scripted answers)"}
	if len(s.answers) > 0 {
		a, s.answers = s.answers[0], s.answers[1:]
	}
	s.mu.Unlock()
	if a.Before != nil {
		a.Before()
	}

	switch {
	case key != "" && req.Authorization != "Bearer "+key:
		writeError(w, http.StatusUnauthorized, "invalid_api_key", "Incorrect API key provided.", 0)
		return
	case len(models) > 0 && !contains(models, req.Model):
		writeError(w, http.StatusNotFound, "model_not_found", fmt.Sprintf("The model `%s` does not exist.", req.Model), 0)
		return
	case a.Status != 0 && a.Status != http.StatusOK:
		writeError(w, a.Status, a.Code, http.StatusText(a.Status), a.RetryAfterMs)
		return
	}
	if a.ContentType != "" {
		w.Header().Set("Content-Type", a.ContentType)
		fmt.Fprint(w, a.Text)
		return
	}
	promptTokens := 0
	for _, m := range req.Messages {
		promptTokens += len(m.Content) / 4
	}
	usage := map[string]int{"prompt_tokens": promptTokens, "completion_tokens": len(a.Text) / 4,
		"total_tokens": promptTokens + len(a.Text)/4}
	finish := a.FinishReason
	if finish == "" {
		finish = "stop"
		if len(a.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": a.Text}
		if len(a.ToolCalls) > 0 {
			var calls []any
			for _, c := range a.ToolCalls {
				calls = append(calls, map[string]any{"id": c.ID, "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
			}
			msg["tool_calls"] = calls
		}
		resp := map[string]any{"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}}}
		if !a.NoUsage {
			resp["usage"] = usage
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	chunk := func(delta map[string]any, finish any, u any) {
		c := map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if u != nil {
			c["choices"], c["usage"] = []any{}, u
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)
	text := a.Text
	if a.CutAfter > 0 && a.CutAfter < len(text) {
		text = text[:a.CutAfter]
	}
	for len(text) > 0 {
		n := min(len(text), 40)
		chunk(map[string]any{"content": text[:n]}, nil, nil)
		text = text[n:]
	}
	if a.Drip {
		for { // a byte at a time, each one news to the client's idle timer
			select {
			case <-r.Context().Done():
				return
			case <-s.closing:
				return
			case <-time.After(time.Millisecond):
			}
			if _, err := fmt.Fprint(w, ":"); err != nil {
				return
			}
			if fl != nil {
				fl.Flush()
			}
		}
	}
	if a.CutAfter > 0 && a.Hang {
		select { // still writing, as far as the client can tell
		case <-r.Context().Done():
		case <-s.closing:
		}
		return
	}
	if a.CutAfter > 0 {
		return // the connection ends here: no finish_reason, no [DONE]
	}
	for i, c := range a.ToolCalls {
		// The first delta names the call; its arguments follow in pieces.
		call := func(f map[string]any, first bool) map[string]any {
			d := map[string]any{"index": i, "function": f}
			if first {
				d["id"], d["type"] = c.ID, "function"
			}
			return map[string]any{"tool_calls": []any{d}}
		}
		chunk(call(map[string]any{"name": c.Name, "arguments": ""}, true), nil, nil)
		for args := c.Arguments; len(args) > 0; {
			n := min(len(args), 7)
			chunk(call(map[string]any{"arguments": args[:n]}, false), nil, nil)
			args = args[n:]
		}
	}
	chunk(map[string]any{}, finish, nil)
	if req.IncludeUsage && !a.NoUsage {
		chunk(nil, nil, usage)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// content reads a message's content: a string, or an array of text parts.
func content(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func writeError(w http.ResponseWriter, status int, code, msg string, retryAfterMs int) {
	if retryAfterMs > 0 {
		w.Header().Set("Retry-After-Ms", fmt.Sprint(retryAfterMs))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": code}})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
