package agent

// The answer's size and pace: a server may send without end (a stream that
// never finishes, an event that never ends, a whole answer or an error
// body without end), or go silent without closing the connection. The text
// is capped as it is read (complete), and the HTTP body that carries it as
// it arrives (capBody), so that neither memory nor time grows without
// bound before the cap is seen; a request that receives nothing for the
// idle timeout is given up.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/step"
	"github.com/openai/openai-go/v3/option"
)

// DefaultIdleTimeout is how long the API may send nothing when Config
// leaves IdleTimeout zero: [model] idle_timeout's default.
const DefaultIdleTimeout = config.DefaultIdleTimeout

// IdleError is a request that received nothing for the idle timeout.
type IdleError struct{ Idle time.Duration }

func (e *IdleError) Error() string {
	return fmt.Sprintf("the model API sent nothing for %s", e.Idle)
}

// Class is internal, as the run's error for it (a ModelError without an
// HTTP status) is: the server, not the command line, is at fault.
func (e *IdleError) Class() step.Class { return step.ClassInternal }

// DefaultAnswerTimeout is the longest one answer may take when Config
// leaves AnswerTimeout zero: [model] answer_timeout's default.
const DefaultAnswerTimeout = config.DefaultAnswerTimeout

// AnswerTimeoutError is an answer that took longer than the answer
// timeout, however steadily it came.
type AnswerTimeoutError struct{ Limit time.Duration }

func (e *AnswerTimeoutError) Error() string {
	return fmt.Sprintf("the model's answer took longer than %s", e.Limit)
}

// Class is internal, as the run's error for it (a ModelError without an
// HTTP status) is: the server, not the command line, is at fault.
func (e *AnswerTimeoutError) Class() step.Class { return step.ClassInternal }

// NotAnswerError is a response that is not an answer in the API's format:
// an HTML page (a login portal, a proxy's error page, the wrong URL) or a
// JSON error where an event stream was asked for, with status 200.
type NotAnswerError struct {
	Want        string // "an event stream" or "JSON"
	ContentType string // as the server said it ("" when it said none)
	First       []byte // the first bytes of the body
}

func (e *NotAnswerError) Error() string {
	ct := e.ContentType
	if ct == "" {
		ct = "no content type"
	}
	return fmt.Sprintf("the model API answered with %s, not %s; it begins %s", ct, e.Want, quoteStart(e.First))
}

// Class is internal: the server, not the command line, is at fault (the
// URL may be, and the hint says so).
func (e *NotAnswerError) Class() step.Class { return step.ClassInternal }

// quoteStart shows the first bytes of a body escaped, as Go quotes a
// string: a page's markup or control characters reach no terminal as
// they are.
func quoteStart(b []byte) string {
	const n = 120
	if len(b) > n {
		return strconv.Quote(strings.ToValidUTF8(string(b[:n]), "")) + "…"
	}
	return strconv.Quote(string(b))
}

// DefaultMaxAnswerBytes is the cap of one answer when Config leaves it
// zero: apply's default max_response_bytes.
const DefaultMaxAnswerBytes = config.DefaultMaxResponseBytes

// AnswerTooLargeError is an answer, or the HTTP body carrying it, past its
// cap.
type AnswerTooLargeError struct {
	Max  int64 // the cap
	Body bool  // the HTTP body passed its cap (see capBody), not the text
}

func (e *AnswerTooLargeError) Error() string {
	if e.Body {
		return fmt.Sprintf("the model's answer is larger than %d bytes: the API sent more for it than such an answer takes", e.Max)
	}
	return fmt.Sprintf("the model's answer is larger than %d bytes", e.Max)
}

// Class is internal, as the run's error for it (a ModelError without an
// HTTP status) is: the model's answer, not the command line, is at fault.
func (e *AnswerTooLargeError) Class() step.Class { return step.ClassInternal }

// limits returns the option that caps every response body of the API for
// answers of at most max bytes of text (see capBody), and gives up a
// request (each attempt of it) that receives nothing for idle: no
// response, or no byte of its body.
//
// stream says what the answer is asked as: an event stream, else JSON. A
// response with status 200 that is neither (checked by its content type,
// or its first bytes when the type is not the one asked for) gives a body
// that fails at once with *NotAnswerError: the client library would read
// an HTML page as an empty stream, and a failed body is not retried.
func limits(max int64, idle time.Duration, stream bool) option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		ctx, cancel := context.WithCancelCause(req.Context())
		silent := &IdleError{Idle: idle}
		timer := time.AfterFunc(idle, func() { cancel(silent) })
		res, err := next(req.WithContext(ctx))
		if err != nil || res == nil || res.Body == nil {
			timer.Stop()
			if context.Cause(ctx) == silent {
				err = silent
			}
			cancel(nil)
			return res, err
		}
		mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
		b := newCapBody(res.Body, max, mt == "text/event-stream")
		b.idle, b.timer, b.ctx, b.cancel, b.silent = idle, timer, ctx, cancel, silent
		res.Body = b
		if res.StatusCode == http.StatusOK {
			var isJSON bool
			res.Body, isJSON = checkAnswer(b, res.Header.Get("Content-Type"), mt, stream)
			if isJSON && mt != "application/json" {
				// The client library decodes only what is labelled JSON.
				res.Header.Set("Content-Type", "application/json")
			}
		}
		return res, nil
	})
}

// checkAnswer returns body, or a body that fails with *NotAnswerError when
// it is not an answer of the kind asked for: an event stream (whose first
// field is data:, event:, id:, retry: or a : comment) or a JSON object.
// A content type that says so is taken at its word; any other is judged by
// the body's first bytes, since some servers send none or a wrong one.
// isJSON: a whole answer that is JSON.
func checkAnswer(body io.ReadCloser, ct, mt string, stream bool) (_ io.ReadCloser, isJSON bool) {
	want := "JSON"
	if stream {
		want = "an event stream"
	}
	if stream && mt == "text/event-stream" || !stream && mt == "application/json" {
		return body, !stream
	}
	// Enough bytes to tell: up to a first field's name, or the end.
	head := make([]byte, 0, 512)
	buf := make([]byte, 512)
	var err error
	for len(bytes.TrimLeft(head, " \t\r\n\ufeff")) < 7 && err == nil && len(head) < cap(head) {
		var n int
		n, err = body.Read(buf[:cap(head)-len(head)])
		head = append(head, buf[:n]...)
	}
	lead := bytes.TrimLeft(head, " \t\r\n\ufeff")
	ok := !stream && bytes.HasPrefix(lead, []byte("{"))
	if stream {
		for _, f := range []string{"data:", "event:", "id:", "retry:", ":"} {
			ok = ok || bytes.HasPrefix(lead, []byte(f))
		}
	}
	if ok {
		return struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), body), body}, !stream
	}
	// Not an answer: a little more of it for the message, then the error.
	for err == nil && len(head) < 200 {
		var n int
		n, err = body.Read(buf[:200-len(head)])
		head = append(head, buf[:n]...)
	}
	return failedBody{err: &NotAnswerError{Want: want, ContentType: ct, First: head}, Closer: body}, false
}

// failedBody fails every read with err.
type failedBody struct {
	err error
	io.Closer
}

func (f failedBody) Read([]byte) (int, error) { return 0, f.err }

// capBody reads a response body up to its cap, then fails with
// *AnswerTooLargeError. A whole answer is JSON: its text escaped (a
// server that escapes every non-ASCII letter as \uXXXX doubles CJK text,
// triples an emoji), so 4 times the text's cap and a MiB. A stream spends
// most of its bytes on the JSON around each few bytes of text (150 bytes
// for a token, more with reasoning text), so its cap only bounds the
// time a stream without end takes (16 times, and a MiB); its memory is
// bounded by the cap of one event (the text's cap and a MiB: the client
// library keeps an event's data lines until the blank line that ends it).
type capBody struct {
	rc     io.ReadCloser
	left   int64
	max    int64 // the text's cap, for the error
	stream bool
	// event counts the bytes of the stream's event being read, line
	// the bytes of its current line (without a CR).
	event, line, eventMax int64

	// The idle timeout: each byte read resets timer, which cancels ctx
	// with silent when it fires (see limits).
	idle   time.Duration
	timer  *time.Timer
	ctx    context.Context
	cancel context.CancelCauseFunc
	silent *IdleError
}

func newCapBody(rc io.ReadCloser, max int64, stream bool) *capBody {
	b := &capBody{rc: rc, max: max, stream: stream, left: 4*max + 1<<20}
	if stream {
		b.left, b.eventMax = 16*max+1<<20, max+1<<20
	}
	return b
}

func (b *capBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, &AnswerTooLargeError{Max: b.max, Body: true}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.timer != nil {
		if n > 0 {
			b.timer.Reset(b.idle)
		}
		if err != nil && context.Cause(b.ctx) == b.silent {
			err = b.silent
		}
	}
	if b.stream {
		for _, c := range p[:n] {
			switch {
			case c == '\n' && b.line == 0:
				b.event = 0 // a blank line ends the event
			case c == '\n':
				b.line = 0
			case c != '\r':
				b.line++
				b.event++
			}
		}
		if b.event > b.eventMax {
			b.left = 0
			return n, &AnswerTooLargeError{Max: b.max, Body: true}
		}
	}
	return n, err
}

func (b *capBody) Close() error {
	if b.timer != nil {
		b.timer.Stop()
		defer b.cancel(nil)
	}
	return b.rc.Close()
}
