package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/agent"
	"github.com/autocoder/autocoder/step"
)

// hostileServer answers every request with h: an API server that is not
// what it says.
func hostileServer(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The request read whole: from then on the server notices the
		// client going away (r.Context), which the handlers wait for.
		io.Copy(io.Discard, r.Body)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// endless writes to w until the client goes away (or a minute passes, so a
// broken test ends too).
func endless(w http.ResponseWriter, r *http.Request, chunk string) {
	fl, _ := w.(http.Flusher)
	deadline := time.Now().Add(time.Minute)
	for r.Context().Err() == nil && time.Now().Before(deadline) {
		if _, err := fmt.Fprint(w, chunk); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
}

// An answer larger than the cap (a stream that never ends, one that never
// ends an event, a whole answer without end) is refused once it passes the
// cap, in bounded time and memory: the run stops with an error that says
// so and what to do, and nothing of it is applied.
func TestAnswerLargerThanTheCap(t *testing.T) {
	block := `{"id":"x","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"#####--\n{\"metadata\": {\"step_id\": \"s1\"}, \"type\": \"operate\", \"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"a.txt\", \"file_content\": \"` + strings.Repeat("x", 200) + `\"}]}\n"},"finish_reason":null}]}`
	for name, c := range map[string]struct {
		stream bool
		h      http.HandlerFunc
	}{
		"endless stream": {true, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			endless(w, r, "data: "+block+"\n\n")
		}},
		"endless event": {true, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			endless(w, r, "data: "+strings.Repeat("x", 1000)+"\n")
		}},
		"endless empty events": {true, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			endless(w, r, `data: {"id":"x","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]}`+"\n\n")
		}},
		"endless whole answer": {false, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"`)
			endless(w, r, strings.Repeat("x", 1000))
		}},
		"endless error": {false, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"`)
			endless(w, r, strings.Repeat("x", 1000))
		}},
	} {
		t.Run(name, func(t *testing.T) {
			f := setup(t)
			f.c.BaseURL = hostileServer(t, c.h)
			f.c.NoStream = !c.stream
			f.c.MaxAnswerBytes = 64 << 10
			f.c.MaxRetries = 0
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			start := time.Now()
			rep, err := f.run(t, ctx, nil)
			var me *agent.ModelError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), "larger than") || !strings.Contains(me.Hint(), "max_response_bytes") || rep.Stop != agent.StopError {
				t.Fatalf("after %s: err %v (%#v), stop %s", time.Since(start), err, me, rep.Stop)
			}
			if f.stepCommits(t) != 0 {
				t.Errorf("%d commits of an answer refused", f.stepCommits(t))
			}
			f.g.AssertUnchanged(f.before)
		})
	}
}

// A server that goes silent (never answers, or stops in the middle of a
// stream without closing it) is given up after the idle timeout: the run
// stops with an error that says so and what to do, nothing applied.
func TestSilentServer(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out idle timeouts: slow; runs without -short")
	}
	for name, c := range map[string]struct {
		stream bool
		h      http.HandlerFunc
	}{
		"no answer": {true, func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}},
		"no whole answer": {false, func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}},
		"silent stream": {true, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"id":"x","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"Step"},"finish_reason":null}]}`+"\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}},
		"silent body": {false, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,`)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}},
	} {
		t.Run(name, func(t *testing.T) {
			f := setup(t)
			f.c.BaseURL = hostileServer(t, c.h)
			f.c.NoStream = !c.stream
			f.c.IdleTimeout = 300 * time.Millisecond
			f.c.MaxRetries = 0
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			start := time.Now()
			rep, err := f.run(t, ctx, nil)
			var me *agent.ModelError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), "sent nothing for 300ms") || !strings.Contains(me.Hint(), "idle_timeout") || rep.Stop != agent.StopError {
				t.Fatalf("after %s: err %v (%#v), stop %s", time.Since(start), err, me, rep.Stop)
			}
			f.g.AssertUnchanged(f.before)
		})
	}
}

// An error the server answers with that quotes the API key (a proxy that
// echoes the request, a hostile server) is shown and recorded without it:
// the key is the one secret a run holds.
func TestErrorsNeverShowTheKey(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	for _, status := range []int{http.StatusUnauthorized, http.StatusBadRequest, http.StatusInternalServerError} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			f := setup(t)
			f.c.APIKey, f.c.MaxRetries = key, 0
			f.c.BaseURL = hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s (%s)","code":"%s"}}`, key, r.Header.Get("Authorization"), key)
			})
			rep, err := f.run(t, context.Background(), nil)
			if err == nil {
				t.Fatal("no error")
			}
			var me *agent.ModelError
			for what, text := range map[string]string{"error": err.Error(), "record": rep.Err, "output": f.out.String()} {
				if strings.Contains(text, key) {
					t.Errorf("the %s shows the key: %q", what, text)
				}
			}
			if !errors.As(err, &me) || !strings.Contains(err.Error(), "Incorrect API key provided") {
				t.Errorf("the server's message is gone: %v", err)
			}
		})
	}
}

// Token counts a server reports below zero (a broken or lying server) are
// no counts: the run estimates the turn's tokens instead, so the budget
// still ends the run. They lowered the run's total, and the budget was
// never reached.
// So are counts whose sum passes the largest int64 (it wrapped below zero).
func TestNegativeUsageIsNoUsage(t *testing.T) {
	for name, u := range map[string][2]int64{"negative": {-1000000, 100}, "wrapping": {6e18, 6e18}} {
		t.Run(name, func(t *testing.T) {
			f := setup(t)
			answer := create("s1", "a.txt", strings.Repeat("a", 400))
			f.c.BaseURL = hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				b, _ := json.Marshal(map[string]any{"id": "x", "object": "chat.completion", "created": 0, "model": "m",
					"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer}}},
					"usage":   map[string]any{"prompt_tokens": u[0], "completion_tokens": u[1], "total_tokens": u[0] + u[1]}})
				w.Write(b)
			})
			f.c.NoStream, f.c.MaxTokens, f.c.MaxTurns = true, 50, 5
			rep, err := f.run(t, context.Background(), nil)
			if err != nil || rep.Stop != agent.StopBudget || len(rep.Turns) != 1 || rep.Tokens < 50 || !rep.Turns[0].Usage.Estimated {
				t.Fatalf("stop %s, err %v, %d turns, %d tokens, usage %+v", rep.Stop, err, len(rep.Turns), rep.Tokens, rep.Turns[0].Usage)
			}
		})
	}
}

// A base URL with a password in it (a proxy's user:password@host) is
// named in hints without the password, as Go's own errors name it.
func TestHintsHideTheBaseURLsPassword(t *testing.T) {
	f := setup(t)
	f.srv.SetModels("gpt-x")
	f.c.BaseURL = strings.Replace(f.srv.URL(), "http://", "http://proxyuser:hunter2secret@", 1)
	rep, err := f.run(t, context.Background(), nil)
	var me *agent.ModelError
	if !errors.As(err, &me) || rep.Stop != agent.StopError || !strings.Contains(me.Hint(), "GET http://proxyuser:xxxxx@") {
		t.Fatalf("err %v, hint %q", err, step.HintOf(err))
	}
	for what, text := range map[string]string{"error": err.Error(), "hint": me.Hint(), "record": rep.Err, "output": f.out.String()} {
		if strings.Contains(text, "hunter2secret") {
			t.Errorf("the %s shows the password: %q", what, text)
		}
	}
	f.g.AssertUnchanged(f.before)
}
