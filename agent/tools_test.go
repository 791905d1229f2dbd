package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/agent"
	"github.com/autocoder/autocoder/agent/agenttest"
)

func call(id, name string, args map[string]any) agenttest.ToolCall {
	b, _ := json.Marshal(args)
	return agenttest.ToolCall{ID: id, Name: name, Arguments: string(b)}
}

const addGreet = "*** Begin Patch\n*** Add File: greet.py\n+def greet():\n+    print(\"hello\")\n*** End Patch\n"

// run --tools: the functions are offered with every request, a streamed
// call (its arguments in pieces) is assembled and applied as one step, its
// answer is a tool message under the call's id after the assistant message
// that made the call, and finish ends the run with its summary. Streamed
// and whole answers alike.
func TestToolsLoop(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "stream", false: "whole"}[stream], func(t *testing.T) {
			f := setup(t,
				agenttest.Answer{Text: "Adding it.", ToolCalls: []agenttest.ToolCall{call("call_1", "apply_patch", map[string]any{"input": addGreet})}},
				agenttest.Answer{ToolCalls: []agenttest.ToolCall{call("call_2", "read_file", map[string]any{"path": "greet.py"})}},
				agenttest.Answer{ToolCalls: []agenttest.ToolCall{call("call_3", "finish", map[string]any{"summary": "greet.py says hello"})}},
			)
			f.c.Tools, f.c.NoStream = true, !stream
			rep, err := f.run(t, context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Stop != agent.StopFinished || rep.Finished != "greet.py says hello" || len(rep.Turns) != 3 {
				t.Fatalf("stop %s %q after %d turns", rep.Stop, rep.Finished, len(rep.Turns))
			}
			if n := f.stepCommits(t); n != 1 {
				t.Errorf("%d step commits, want 1", n)
			}
			if got := f.g.Git("show", "autocoder/main:greet.py"); got != "def greet():\n    print(\"hello\")\n" {
				t.Errorf("greet.py = %q", got)
			}
			reqs := f.srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests", len(reqs))
			}
			if want := []string{"apply_patch", "str_replace_based_edit_tool", "read_file", "finish"}; !slices.Equal(reqs[0].Tools, want) {
				t.Errorf("offered %v, want %v (no run_program: programs are not allowed)", reqs[0].Tools, want)
			}
			msgs := reqs[1].Messages
			a, tool := msgs[len(msgs)-2], msgs[len(msgs)-1]
			if a.Role != "assistant" || len(a.ToolCalls) != 1 || !strings.HasPrefix(a.ToolCalls[0], "call_1 apply_patch {") {
				t.Errorf("the assistant message is %+v", a)
			}
			if tool.Role != "tool" || tool.ToolCallID != "call_1" ||
				!strings.Contains(tool.Content, "Success. Updated the following files:") || !strings.Contains(tool.Content, "A greet.py") {
				t.Errorf("the tool message is %+v", tool)
			}
			last := reqs[2].Messages[len(reqs[2].Messages)-1]
			if last.ToolCallID != "call_2" || !strings.Contains(last.Content, `print("hello")`) {
				t.Errorf("the read's answer is %+v", last)
			}
		})
	}
}

// A call that fails takes nothing of itself and stops the answer: the call
// after it is not attempted, and both are answered, the first with why.
func TestToolsFailureStopsTheAnswer(t *testing.T) {
	f := setup(t, agenttest.Answer{ToolCalls: []agenttest.ToolCall{
		call("c1", "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: new.txt\n+x\n*** Update File: missing.py\n@@\n-a\n+b\n*** End Patch\n"}),
		call("c2", "str_replace_based_edit_tool", map[string]any{"command": "create", "path": "other.txt", "file_text": "y\n"}),
	}})
	f.c.Tools = true
	if _, err := f.run(t, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n := f.stepCommits(t); n != 0 {
		t.Errorf("%d step commits after a failed call", n)
	}
	f.g.AssertUnchanged(f.before)
	reqs := f.srv.Requests()
	msgs := reqs[1].Messages
	c1, c2 := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if c1.ToolCallID != "c1" || !strings.Contains(c1.Content, "missing.py") || !strings.Contains(c1.Content, "No files were modified") {
		t.Errorf("c1's answer: %+v", c1)
	}
	if c2.ToolCallID != "c2" || !strings.Contains(c2.Content, "Not attempted") {
		t.Errorf("c2's answer: %+v", c2)
	}
	if _, err := os.Stat(filepath.Join(f.g.Dir, "other.txt")); err == nil {
		t.Error("the call after a failed one was applied")
	}
}

// run_program is offered only where programs are allowed; a call of a
// function that was not offered, or with arguments that are not JSON, is
// answered with the error and changes nothing.
func TestToolsOffered(t *testing.T) {
	f := setup(t, agenttest.Answer{ToolCalls: []agenttest.ToolCall{
		{ID: "c1", Name: "apply_patch", Arguments: `{"input": "*** Begin`},
	}}, agenttest.Answer{ToolCalls: []agenttest.ToolCall{call("c2", "rm_rf", map[string]any{"path": "."})}})
	f.c.Tools, f.c.Programs = true, true
	if _, err := f.run(t, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	f.g.AssertUnchanged(f.before)
	reqs := f.srv.Requests()
	if !slices.Contains(reqs[0].Tools, "run_program") {
		t.Errorf("programs allowed, but run_program not offered: %v", reqs[0].Tools)
	}
	if m := reqs[1].Messages[len(reqs[1].Messages)-1]; m.ToolCallID != "c1" || !strings.Contains(m.Content, "not a JSON object") {
		t.Errorf("a call with broken arguments is answered %+v", m)
	}
	if m := reqs[2].Messages[len(reqs[2].Messages)-1]; m.ToolCallID != "c2" || !strings.Contains(m.Content, "no such function") {
		t.Errorf("a call of no function offered is answered %+v", m)
	}
}

// An answer whose edit could not be read never ends a run: the model is
// told what is wrong and sends it again; only an answer with nothing that
// looks like an edit ends it. A model that drifts into a unified diff gets
// it applied, and the run goes on.
func TestUnreadableEditIsNotTheEnd(t *testing.T) {
	cut := "Here is the fix:\n\n*** Begin Patch\n*** Add File: fix.txt\n+fixed\n"
	diff := "And a diff:\n\n```diff\n--- a/README\n+++ b/README\n@@ -1 +1 @@\n-hello\n+hello, world\n```\n"
	f := setup(t,
		agenttest.Answer{Text: cut},
		agenttest.Answer{Text: cut + "*** End Patch\n"},
		agenttest.Answer{Text: diff},
		agenttest.Answer{Text: "All done."},
	)
	rep, err := f.run(t, context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Stop != agent.StopNoBlock || len(rep.Turns) != 4 {
		t.Fatalf("stop %s after %d turns, want no_block after 4", rep.Stop, len(rep.Turns))
	}
	if fb := rep.Turns[0].Feedback; !strings.Contains(fb, "End Patch") {
		t.Errorf("the first turn's feedback does not say what is missing:\n%s", fb)
	}
	if n := f.stepCommits(t); n != 2 {
		t.Errorf("%d step commits, want 2 (the patch sent again, the diff)", n)
	}
	if got := f.g.Git("show", "autocoder/main:README"); got != "hello, world\n" {
		t.Errorf("README = %q", got)
	}
}

// The bound holds: a model that keeps sending an edit that cannot be read
// is stopped by --max-turns, not taken as finished.
func TestUnreadableEditsEndAtMaxTurns(t *testing.T) {
	cut := "*** Begin Patch\n*** Add File: fix.txt\n+fixed\n"
	f := setup(t, agenttest.Answer{Text: cut}, agenttest.Answer{Text: cut}, agenttest.Answer{Text: cut})
	f.c.MaxTurns = 2
	rep, err := f.run(t, context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Stop != agent.StopMaxTurns || len(rep.Turns) != 2 {
		t.Fatalf("stop %s after %d turns", rep.Stop, len(rep.Turns))
	}
	f.g.AssertUnchanged(f.before)
}

// The editor tool's call is read by the editor-json reader, as the same
// command written in text would be: create, then str_replace, each a
// commit, each answered in the tool's words; undo_edit is not done.
func TestToolsEditor(t *testing.T) {
	f := setup(t, agenttest.Answer{ToolCalls: []agenttest.ToolCall{
		call("e1", "str_replace_based_edit_tool", map[string]any{"command": "create", "path": "notes.txt", "file_text": "one\ntwo\n"}),
		call("e2", "str_replace_based_edit_tool", map[string]any{"command": "str_replace", "path": "notes.txt", "old_str": "two", "new_str": "three"}),
	}}, agenttest.Answer{ToolCalls: []agenttest.ToolCall{
		call("e3", "str_replace_based_edit_tool", map[string]any{"command": "undo_edit", "path": "notes.txt"}),
	}})
	f.c.Tools = true
	if _, err := f.run(t, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n := f.stepCommits(t); n != 2 {
		t.Errorf("%d step commits, want 2", n)
	}
	if got := f.g.Git("show", "autocoder/main:notes.txt"); got != "one\nthree\n" {
		t.Errorf("notes.txt = %q", got)
	}
	reqs := f.srv.Requests()
	msgs := reqs[1].Messages
	if m := msgs[len(msgs)-1]; m.ToolCallID != "e2" || m.Content == "" || strings.Contains(m.Content, "Not attempted") {
		t.Errorf("e2's answer: %+v", m)
	}
	if m := reqs[2].Messages[len(reqs[2].Messages)-1]; m.ToolCallID != "e3" || !strings.Contains(m.Content, "autocoder undo") {
		t.Errorf("undo_edit's answer: %+v", m)
	}
}
