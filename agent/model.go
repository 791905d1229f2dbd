package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/autocoder/autocoder/step"
)

// Message is one message of the conversation, as sent to the model.
type Message struct {
	Role    string `json:"role"` // system, user, assistant or tool
	Content string `json:"content"`
	// ToolCalls are the calls an assistant message made (run --tools);
	// ToolCallID is the call a tool message answers.
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// Usage counts the tokens of one request. Estimated is set when the server
// reported none and the counts are a guess from the text (4 bytes a token).
type Usage struct {
	Prompt     int64 `json:"prompt_tokens"`
	Completion int64 `json:"completion_tokens"`
	Estimated  bool  `json:"estimated,omitempty"`
}

// Total is prompt and completion together.
func (u Usage) Total() int64 { return u.Prompt + u.Completion }

// client is the model behind an OpenAI-compatible chat API.
type client struct {
	api    openai.Client
	model  string
	stream bool
	keyEnv string        // the variable that holds the key ("" unknown)
	base   string        // the base URL, for hints (shownURL)
	noKey  bool          // that variable is empty
	max    int64         // the cap of one answer's text
	key    string        // the API key, never shown (see redact)
	total  time.Duration // the longest one answer may take
	// tools are the functions offered with every request (run --tools);
	// nil offers none.
	tools []openai.ChatCompletionToolUnionParam
}

func newClient(c Config) *client {
	opts := []option.RequestOption{
		option.WithBaseURL(c.BaseURL),
		option.WithAPIKey(c.APIKey),
		// The library retries connection errors, 408, 409, 429 and 5xx with
		// an exponential backoff (0.5 s, 1 s, 2 s, … with jitter) and honours
		// Retry-After; a 401 or 404 is never retried.
		option.WithMaxRetries(c.MaxRetries),
	}
	max := c.MaxAnswerBytes
	if max <= 0 {
		max = DefaultMaxAnswerBytes
	}
	idle := c.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	opts = append(opts, limits(max, idle, !c.NoStream))
	total := c.AnswerTimeout
	if total <= 0 {
		total = DefaultAnswerTimeout
	}
	return &client{api: openai.NewClient(opts...), model: c.Model, stream: !c.NoStream, keyEnv: c.APIKeyEnv, noKey: c.APIKey == "",
		base: shownURL(c.BaseURL), max: max, key: c.APIKey, total: total, tools: offered(c)}
}

// offered are the functions a run offers: none unless Config.Tools.
func offered(c Config) []openai.ChatCompletionToolUnionParam {
	if !c.Tools {
		return nil
	}
	return toolDefs(c.Programs)
}

// shownURL is the base URL as hints name it: without its password (a
// proxy's user:password@host), as Go's own errors name a URL.
func shownURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		raw = u.Redacted()
	}
	return strings.TrimRight(raw, "/")
}

func (c *client) params(msgs []Message) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: c.model}
	for _, m := range msgs {
		switch m.Role {
		case "system":
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case "assistant":
			if len(m.ToolCalls) > 0 {
				a := openai.ChatCompletionAssistantMessageParam{}
				if m.Content != "" {
					a.Content.OfString = openai.String(m.Content)
				}
				for _, tc := range m.ToolCalls {
					a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
						OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: tc.ID,
							Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments}}})
				}
				p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
				continue
			}
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Content))
		case "tool":
			p.Messages = append(p.Messages, openai.ToolMessage(m.Content, m.ToolCallID))
		default:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		}
	}
	p.Tools = c.tools
	return p
}

// complete asks the model for its next answer. Streamed text goes to out as
// it arrives; the whole answer is returned only when the server said it
// ended, so a cut stream never reaches the engine. limited: the model's
// output limit ended the answer (finish_reason length), not the model.
// The function calls of the answer, whole, go to calls (run --tools).
func (c *client) complete(ctx context.Context, msgs []Message, out io.Writer, calls *[]ToolCall) (text string, u Usage, limited bool, err error) {
	// The whole answer, retries included, within its time: each byte
	// resets the idle timeout, so a server that drips would never end.
	parent := ctx
	late := &AnswerTimeoutError{Limit: c.total}
	ctx, cancel := context.WithTimeoutCause(ctx, c.total, late)
	defer cancel()
	defer func() {
		if err != nil && parent.Err() == nil && context.Cause(ctx) == late {
			text, u, limited = "", Usage{}, false
			err = &ModelError{Msg: late.Error(),
				Fix: "nothing of this answer was applied; check that the server at " + c.base +
					" is working and run the command again, or raise [model] answer_timeout in autocoder.toml if answers take longer"}
		}
	}()
	p := c.params(msgs)
	if !c.stream {
		res, err := c.api.Chat.Completions.New(ctx, p)
		if err != nil {
			return "", Usage{}, false, c.apiError(ctx, err)
		}
		if len(res.Choices) == 0 {
			return "", Usage{}, false, &ModelError{Msg: "the model's answer has no choices", Fix: "check that the server speaks the OpenAI chat completions API"}
		}
		text := res.Choices[0].Message.Content
		size := int64(len(text)) // the calls' arguments count against the cap too
		for _, tc := range res.Choices[0].Message.ToolCalls {
			*calls = append(*calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
			size += int64(len(tc.Function.Arguments))
		}
		if size > c.max {
			*calls = nil
			return "", Usage{}, false, c.tooLarge(&AnswerTooLargeError{Max: c.max})
		}
		io.WriteString(out, text)
		return text, usageOf(res.Usage.PromptTokens, res.Usage.CompletionTokens, msgs, text), res.Choices[0].FinishReason == "length", nil
	}
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	s := c.api.Chat.Completions.NewStreaming(ctx, p)
	defer s.Close()
	var b strings.Builder
	var tcs toolCalls
	var cu openai.CompletionUsage
	ended := false
	for s.Next() {
		ch := s.Current()
		if ch.Usage.TotalTokens > 0 || ch.Usage.PromptTokens > 0 {
			cu = ch.Usage
		}
		for _, choice := range ch.Choices {
			if choice.Index != 0 {
				continue
			}
			tcs.add(choice.Delta.ToolCalls)
			if int64(b.Len()+len(choice.Delta.Content))+tcs.size > c.max {
				return "", Usage{}, false, c.tooLarge(&AnswerTooLargeError{Max: c.max})
			}
			b.WriteString(choice.Delta.Content)
			io.WriteString(out, choice.Delta.Content)
			if choice.FinishReason != "" {
				ended = true
				limited = choice.FinishReason == "length"
			}
		}
	}
	if err := s.Err(); err != nil {
		return "", Usage{}, false, c.apiError(ctx, err)
	}
	if ctx.Err() != nil {
		return "", Usage{}, false, context.Cause(ctx)
	}
	if !ended {
		// An SSE stream that stops without a finish_reason (the server
		// died, a proxy cut the connection) looks like a normal end to the
		// client library: only the missing finish_reason tells.
		return "", Usage{}, false, &ModelError{Msg: fmt.Sprintf("the answer stream was cut after %d bytes, before the model finished", b.Len()),
			Fix: "nothing of this answer was applied; run the command again, or try --no-stream if a proxy cuts long streams"}
	}
	*calls = tcs.calls
	return b.String(), usageOf(cu.PromptTokens, cu.CompletionTokens, msgs, b.String()), limited, nil
}

// usageOf is a turn's usage: the server's counts, or an estimate when it
// reported none, or counts below zero or too large to add (which would
// lower the run's total and keep the budget from ever ending it).
func usageOf(prompt, completion int64, msgs []Message, answer string) Usage {
	if prompt >= 0 && completion >= 0 && prompt+completion > 0 { // a sum that wraps is below zero
		return Usage{Prompt: prompt, Completion: completion}
	}
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
	}
	return Usage{Prompt: int64(n+3) / 4, Completion: int64(len(answer)+3) / 4, Estimated: true}
}

// ModelError is a failure to get an answer from the model: the server
// refused the request, was not reachable, or cut its answer. Nothing of the
// turn was applied.
type ModelError struct {
	Status int    // the HTTP status, 0 when there was no response
	Msg    string // what failed
	Fix    string // what to do
	Err    error
}

func (e *ModelError) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

// Unwrap returns the cause.
func (e *ModelError) Unwrap() error { return e.Err }

// Hint says what to do.
func (e *ModelError) Hint() string { return e.Fix }

// Class: a wrong key or model is the command line's (usage); anything else
// is a failure outside us.
func (e *ModelError) Class() step.Class {
	if e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden || e.Status == http.StatusNotFound {
		return step.ClassUsage
	}
	return step.ClassInternal
}

func (c *client) apiError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	var big *AnswerTooLargeError
	if errors.As(err, &big) {
		return c.tooLarge(big)
	}
	var notAnswer *NotAnswerError
	if errors.As(err, &notAnswer) {
		fix := "nothing of this answer was applied; check the base URL (" + c.base + ", from --base-url, OPENAI_BASE_URL or [model] base_url): " +
			"it must be an OpenAI-compatible API's, usually ending in /v1, and a proxy or login page must not stand in its way"
		if c.stream && bytes.HasPrefix(bytes.TrimSpace(notAnswer.First), []byte("{")) {
			fix += "; a server that answers whole even when asked to stream needs --no-stream (or [model] stream = false)"
		}
		return &ModelError{Msg: c.redact(notAnswer.Error()), Fix: fix}
	}
	var silent *IdleError
	if errors.As(err, &silent) {
		return &ModelError{Msg: silent.Error(), Fix: "nothing of this answer was applied; check that the server at " + c.base +
			" is working and run the command again, or raise [model] idle_timeout in autocoder.toml if it needs longer before it answers"}
	}
	var ae *openai.Error
	if !errors.As(err, &ae) {
		if s := err.Error(); s != c.redact(s) {
			err = errors.New(c.redact(s))
		}
		return &ModelError{Msg: "no answer from the model", Err: err,
			Fix: "check OPENAI_BASE_URL (or [model] base_url) and that the server is running"}
	}
	detail := strings.TrimSpace(ae.Message)
	if detail == "" {
		detail = strings.TrimSpace(ae.RawJSON())
	}
	detail = c.redact(detail)
	me := &ModelError{Status: ae.StatusCode, Msg: fmt.Sprintf("the model API answered %d %s", ae.StatusCode, http.StatusText(ae.StatusCode))}
	if detail != "" {
		me.Msg += ": " + detail
	}
	switch {
	case ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden:
		me.Fix = "the API key was refused: set the variable that holds it (OPENAI_API_KEY, or the one [model] api_key_env names) to a valid key"
		if c.keyEnv != "" {
			me.Fix = fmt.Sprintf("the API key was refused: set the variable that holds it (%s, named by [model] api_key_env) to a valid key", c.keyEnv)
			if c.noKey {
				me.Fix += "; " + c.keyEnv + " is not set"
			}
		}
	case ae.StatusCode == http.StatusNotFound || ae.Code == "model_not_found":
		me.Fix = fmt.Sprintf("the server does not know the model %q (or the URL has no chat API): check --model and OPENAI_BASE_URL; GET %s/models lists the models", c.model, c.base)
	case ae.StatusCode == http.StatusTooManyRequests || ae.StatusCode >= 500:
		me.Fix = "the server stayed busy or failing after the retries: wait and run the command again, or raise [model] max_retries"
	default:
		me.Fix = "the request was refused as sent; the message above is the server's"
	}
	return me
}

// redact hides the API key in text from the server (an error that quotes
// the request): the run's errors are printed and saved with its record. A
// key too short to be a secret ("ollama", "x" for a local server) stays,
// as replacing it would garble the text.
func (c *client) redact(text string) string {
	if len(c.key) < 8 {
		return text
	}
	return strings.ReplaceAll(text, c.key, "[the API key]")
}

// tooLarge is the run's error for an answer past its cap: nothing of it
// was applied.
func (c *client) tooLarge(err *AnswerTooLargeError) error {
	return &ModelError{Msg: err.Error(),
		Fix: "nothing of this answer was applied; ask for shorter answers (smaller steps), or raise [apply] max_response_bytes in autocoder.toml if the answer is meant to be this large"}
}

// since formats an elapsed time for the progress line.
func since(t time.Time) string { return time.Since(t).Round(100 * time.Millisecond).String() }
