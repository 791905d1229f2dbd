package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/autocoder/autocoder/agent/agenttest"
	"github.com/rogpeppe/go-internal/testscript"
)

// modelCmds are the script commands that stand a model up for `autocoder
// run`:
//
//	fakemodel [-key=KEY] [-model=NAME] ANSWER...
//	    start a local OpenAI-compatible server (agenttest) for the rest of
//	    the script and point OPENAI_BASE_URL and OPENAI_API_KEY (test-key)
//	    at it. Each ANSWER is one reply, in order: FILE (its text),
//	    status=CODE (an HTTP error, Retry-After-Ms 1), cut=N:FILE (the
//	    file's text streamed, cut after N bytes), or calls=FILE (function
//	    calls, one JSON object a line: {"id", "name", "arguments": {...}}).
//	modelrequests FILE
//	    write every request the server received to FILE, readably: one
//	    "== request N" header, then each message as "-- ROLE" and its text.
func modelCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	var mu sync.Mutex
	servers := map[string]*agenttest.Server{} // by $WORK: scripts run in parallel
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"fakemodel": func(ts *testscript.TestScript, neg bool, args []string) {
			var answers []agenttest.Answer
			key, models := "test-key", []string(nil)
			for _, a := range args {
				switch {
				case strings.HasPrefix(a, "-key="):
					key = strings.TrimPrefix(a, "-key=")
				case strings.HasPrefix(a, "-model="):
					models = append(models, strings.TrimPrefix(a, "-model="))
				case strings.HasPrefix(a, "status="):
					code, err := strconv.Atoi(strings.TrimPrefix(a, "status="))
					ts.Check(err)
					answers = append(answers, agenttest.Answer{Status: code, RetryAfterMs: 1})
				case strings.HasPrefix(a, "calls="):
					var calls []agenttest.ToolCall
					for _, l := range strings.Split(strings.TrimSpace(ts.ReadFile(strings.TrimPrefix(a, "calls="))), "\n") {
						var c struct {
							ID, Name  string
							Arguments json.RawMessage
						}
						ts.Check(json.Unmarshal([]byte(l), &c))
						calls = append(calls, agenttest.ToolCall{ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)})
					}
					answers = append(answers, agenttest.Answer{ToolCalls: calls})
				case strings.HasPrefix(a, "cut="):
					n, file, _ := strings.Cut(strings.TrimPrefix(a, "cut="), ":")
					at, err := strconv.Atoi(n)
					ts.Check(err)
					answers = append(answers, agenttest.Answer{Text: ts.ReadFile(file), CutAfter: at})
				default:
					answers = append(answers, agenttest.Answer{Text: ts.ReadFile(a)})
				}
			}
			srv := agenttest.New(answers...)
			srv.SetKey(key)
			srv.SetModels(models...)
			ts.Defer(srv.Close)
			mu.Lock()
			servers[ts.Getenv("WORK")] = srv
			mu.Unlock()
			ts.Setenv("OPENAI_BASE_URL", srv.URL())
			ts.Setenv("OPENAI_API_KEY", "test-key")
		},
		"modelrequests": func(ts *testscript.TestScript, neg bool, args []string) {
			mu.Lock()
			srv := servers[ts.Getenv("WORK")]
			mu.Unlock()
			if srv == nil || len(args) != 1 {
				ts.Fatalf("usage: modelrequests FILE, after fakemodel")
			}
			var b strings.Builder
			for i, r := range srv.Requests() {
				fmt.Fprintf(&b, "== request %d model=%s stream=%v\n", i+1, r.Model, r.Stream)
				if len(r.Tools) > 0 {
					fmt.Fprintf(&b, "tools: %s\n", strings.Join(r.Tools, " "))
				}
				for _, m := range r.Messages {
					fmt.Fprintf(&b, "-- %s%s\n%s\n", m.Role, strings.TrimSuffix(" "+m.ToolCallID, " "), m.Content)
					for _, c := range m.ToolCalls {
						fmt.Fprintf(&b, "call: %s\n", c)
					}
				}
			}
			ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o666))
		},
	}
}
