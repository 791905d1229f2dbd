package acjson

import (
	"encoding/json"
	"github.com/autocoder/autocoder/internal/golden"
	"github.com/autocoder/autocoder/step"
	"strings"
	"testing"
)

// feedbackResults are results of every kind, for steps read from a real
// block so that Source carries the request's own action types.
func feedbackResults(t *testing.T) []step.Result {
	text := `#####--
{"metadata": {"step_id": "code_002", "reason": "实现游戏初始化逻辑"},
 "file_operations": [
  {"action_type": "replace_file", "path": "tetris/game.py", "modify_content": [
    {"identifier": "Tetris.__init__", "old_content": "pass", "new_content": "self.x = 1"},
    {"old_content": "a", "new_content": "b"}]},
  {"action_type": "replace_file", "path": "README.md", "file_content": "# <Demo>\n"},
  {"action_type": "read_file", "path": "tetris/game.py"},
  {"action_type": "create_directory", "path": "tetris/assets"}],
 "program_operations": [{"name": "run_game", "command": "python tetris/game.py"}, {"name": "run_game", "command": "true"}]}
--#####
#####--
{"metadata": {"step_id": "fail_003"}, "file_operations": [{"action_type": "replace_file", "path": "a.py", "modify_content": [{"identifier": "f", "old_content": "x", "new_content": "y"}]},
  {"action_type": "create_file", "path": "b.py", "file_content": "z"}],
 "program_operations": [{"name": "test", "command": "python a.py"}]}
--#####
#####--
{"type": "finish", "metadata": {"summary": "全部完成"}}
--#####
#####--
{"type": "operate/finish"}
--#####`
	items := Parse([]byte(text))
	if len(items) != 4 || items[3].Err == nil {
		t.Fatalf("items %+v", items)
	}
	return []step.Result{
		{Step: items[0].Step, StepID: "code_002", Status: step.StatusApplied, Commit: "1a2b3c4",
			Ops: []step.OpResult{
				{Kind: step.OpReplace, Path: "tetris/game.py", Status: step.StatusApplied,
					Replaces: []step.ReplaceResult{{Index: 0, Matches: 1}, {Index: 1, Matches: 1}}},
				{Kind: step.OpWrite, Path: "README.md", Status: step.StatusApplied, Message: "replaced an existing file"},
				{Kind: step.OpRead, Path: "tetris/game.py", Status: step.StatusApplied, Output: "import pygame  # <3\n"},
				{Kind: step.OpMkdir, Path: "tetris/assets", Status: step.StatusApplied, Message: "git does not record empty directories"},
			},
			Programs: []step.ProgramResult{
				{Name: "run_game", Status: "failure", Stdout: "", Stderr: "pygame.error: No available video device\n", ReturnCode: 1, Runtime: 2.5},
				{Name: "run_game", Status: "refused", ReturnCode: -1, Error: "refused to run \"python tetris/game.py\": programs are off", Hint: "allow them in autocoder.toml"},
			}},
		{Step: items[1].Step, StepID: "fail_003", Status: step.StatusFailed, Error: "step failed: an edit did not apply", Class: step.ClassStepFailed,
			Ops: []step.OpResult{{Kind: step.OpReplace, Path: "a.py", Status: step.StatusFailed,
				Replaces: []step.ReplaceResult{{Index: 0, Matches: 2}},
				Error:    "old_content occurs 2 times in a.py (lines 3, 9)",
				Hint:     "add lines of context around old_content so it occurs once"},
				{Kind: step.OpWrite, Path: "b.py", Status: step.StatusSkipped, Message: "not attempted: an earlier operation of this step failed"}},
			Programs: []step.ProgramResult{{Name: "test", Status: step.ProgramNotAttempted, ReturnCode: -1,
				Error: "not attempted: an earlier operation of this step failed"}}},
		{Step: items[2].Step, StepID: items[2].Step.ID, Status: step.StatusUnchanged},
		{ParseErr: items[3].Err, StepID: "step-4", Status: step.StatusFailed},
	}
}

func TestFeedbackGolden(t *testing.T) {
	out := Feedback(feedbackResults(t))
	golden.Check(t, "testdata/feedback.golden.md", out)

	// The answer reads back as this dialect's blocks, each strict JSON with
	// the documented fields.
	items := Parse(out)
	if len(items) != 4 {
		t.Fatalf("feedback holds %d blocks, want 4", len(items))
	}
	for i, part := range strings.Split(string(out), "#####--")[1:] {
		body := part[:strings.Index(part, "--#####")]
		var a map[string]any
		if err := json.Unmarshal([]byte(body), &a); err != nil {
			t.Fatalf("block %d is not strict JSON: %v", i, err)
		}
		for _, k := range []string{"metadata", "file_actions", "program_execs"} {
			if _, ok := a[k]; !ok {
				t.Errorf("block %d lacks %q", i, k)
			}
		}
	}
	s := string(out)
	for _, want := range []string{
		`"action": "replace_file",` + "\n" + `      "path": "README.md"`, // the request's own action type, not create_file
		`"id": "Tetris.__init__"`,
		"hint: add lines of context",
		`"run_game#2"`,
		`# <3`, // no HTML escaping
	} {
		if !strings.Contains(s, want) {
			t.Errorf("feedback lacks %q", want)
		}
	}
}

// A block whose shape is wrong but whose metadata could be read is
// answered with the model's own step_id and reason: the model tells its
// blocks apart by them, and the result of an unreadable block has no id.
func TestFeedbackUnreadableKeepsTheStepID(t *testing.T) {
	items := Parse([]byte("#####--\n" + `{"metadata": {"step_id": "x1", "reason": "rename greet"}, "file_operations": [{"action_type": "replace_file", "file_path": "a.go"}]}` + "\n--#####\n"))
	if len(items) != 1 || items[0].Err == nil {
		t.Fatalf("items %+v", items)
	}
	out := string(Feedback([]step.Result{{ParseErr: items[0].Err, Status: step.StatusFailed}}))
	for _, want := range []string{`"step_id": "x1"`, `"reason": "rename greet"`, `the block could not be read`} {
		if !strings.Contains(out, want) {
			t.Errorf("feedback lacks %s:\n%s", want, out)
		}
	}
}
