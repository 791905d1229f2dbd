package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/agent"
	"github.com/autocoder/autocoder/agent/agenttest"
)

const createA = "#####--\n{\"metadata\": {\"step_id\": \"s1\"}, \"type\": \"operate\", \"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"a.txt\", \"file_content\": \"a\\n\"}]}\n--#####\n"

// A server that sends a byte at a time, each resetting the idle timeout,
// is given up at the answer timeout: the run stops with an error that says
// so and names [model] answer_timeout, and nothing of the answer is
// applied. (The timeout is made tiny and the server drips for ever: the
// test ends because the timeout works, not because time passed.)
func TestAnswerTimeoutEndsADrippingServer(t *testing.T) {
	f := setup(t, agenttest.Answer{Text: createA, Drip: true})
	f.c.AnswerTimeout = 20 * time.Millisecond
	f.c.MaxRetries = 0
	rep, err := f.run(t, context.Background(), nil)
	var me *agent.ModelError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "took longer than 20ms") || !strings.Contains(me.Hint(), "answer_timeout") ||
		!strings.Contains(me.Hint(), "nothing of this answer was applied") || rep.Stop != agent.StopError {
		t.Fatalf("err %v (hint %q), stop %s", err, hintOf(err), rep.Stop)
	}
	if f.stepCommits(t) != 0 {
		t.Errorf("%d commits of an answer given up", f.stepCommits(t))
	}
	f.g.AssertUnchanged(f.before)
}

// A response that is not an answer (an HTML page with status 200, a JSON
// error where a stream was asked for) is named as such, with its content
// type and its first bytes escaped, not read as an empty stream.
func TestNotAnAnswerIsNamed(t *testing.T) {
	for name, c := range map[string]struct {
		noStream    bool
		contentType string
		body        string
		want        []string
	}{
		"HTML page, stream": {false, "text/html; charset=utf-8", "<!DOCTYPE html><title>\x1b[31mSign in</title>",
			[]string{"text/html; charset=utf-8, not an event stream", `"<!DOCTYPE html><title>\x1b[31mSign in</title>"`}},
		"JSON error, stream": {false, "application/json", `{"error":{"message":"quota exceeded"}}`,
			[]string{"application/json, not an event stream", `"{\"error\":{\"message\":\"quota exceeded\"}}"`, "--no-stream"}},
		"HTML page, whole": {true, "text/html", "<html>portal</html>",
			[]string{"text/html, not JSON", `"<html>portal</html>"`}},
		"no content type": {false, "", "plain words",
			[]string{"no content type, not an event stream", `"plain words"`}},
	} {
		t.Run(name, func(t *testing.T) {
			ct := c.contentType
			if ct == "" {
				ct = "application/octet-stream"
				c.want[0] = "application/octet-stream, not an event stream"
			}
			f := setup(t, agenttest.Answer{Text: c.body, ContentType: ct})
			f.c.NoStream, f.c.MaxRetries = c.noStream, 0
			rep, err := f.run(t, context.Background(), nil)
			var me *agent.ModelError
			if !errors.As(err, &me) || rep.Stop != agent.StopError || !strings.Contains(me.Hint(), "base URL") {
				t.Fatalf("err %v (hint %q), stop %s", err, hintOf(err), rep.Stop)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error()+"; "+me.Hint(), w) {
					t.Errorf("the error does not say %s:\n%v\nhint: %s", w, err, me.Hint())
				}
			}
			if strings.Contains(err.Error(), "\x1b") || strings.Contains(err.Error(), "cut after") {
				t.Errorf("the error: %q", err)
			}
			f.g.AssertUnchanged(f.before)
		})
	}
}

// A stream or a whole answer whose content type is not the one asked for
// but whose body is one (some servers send text/plain) is read as usual.
func TestAnswerWithAnotherContentTypeIsRead(t *testing.T) {
	stream := `data: {"id":"x","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"done"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	whole := `{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"done"}}]}`
	for name, c := range map[string]struct {
		noStream bool
		body     string
	}{"stream": {false, stream}, "whole": {true, whole}} {
		t.Run(name, func(t *testing.T) {
			f := setup(t, agenttest.Answer{Text: c.body, ContentType: "text/plain"})
			f.c.NoStream, f.c.MaxRetries = c.noStream, 0
			rep, err := f.run(t, context.Background(), nil)
			if err != nil || len(rep.Turns) == 0 || rep.Turns[0].Answer != "done" {
				t.Fatalf("err %v, report %+v", err, rep)
			}
		})
	}
}

func hintOf(err error) string {
	var me *agent.ModelError
	if errors.As(err, &me) {
		return me.Hint()
	}
	return ""
}
