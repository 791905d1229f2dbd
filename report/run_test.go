package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/step"
)

// A failed result carries its class and its class's exit code, also
// the internal class (the zero value, which the result's own tag omits);
// a step taken back by --atomic and a success carry neither.
func TestRunJSONWritesClassAndCode(t *testing.T) {
	r := Run{Code: 7, Results: []step.Result{
		{StepID: "ok", Status: step.StatusApplied},
		{StepID: "back", Status: step.StatusFailed, Reason: step.ReasonRolledBack},
		{StepID: "bad", Status: step.StatusFailed, Class: step.ClassUsage, Reason: step.ReasonInvalid, Hint: "say <x>"},
		{StepID: "bug", Status: step.StatusFailed, Class: step.ClassInternal},
	}}
	var b bytes.Buffer
	if err := r.JSON(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		ExitCode int `json:"exit_code"`
		Results  []struct {
			StepID string `json:"step_id"`
			Class  string `json:"class"`
			Code   int    `json:"code"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	want := map[string][2]any{"ok": {"", 0}, "back": {"", 0}, "bad": {"usage", 2}, "bug": {"internal", 1}}
	for _, r := range got.Results {
		if w := want[r.StepID]; r.Class != w[0] || r.Code != w[1] {
			t.Errorf("%s: class %q code %d, want %q %d", r.StepID, r.Class, r.Code, w[0], w[1])
		}
	}
	if got.ExitCode != 7 || !strings.Contains(b.String(), `"hint": "say <x>"`) {
		t.Errorf("exit code %d, or the hint escaped:\n%s", got.ExitCode, b.String())
	}
}

// Error writes one hint line per line of the hint, after the error.
func TestErrorWritesEveryHintLine(t *testing.T) {
	var b bytes.Buffer
	Error(&b, "x failed: y", "do a\n-old\n+new")
	want := "autocoder: error: x failed: y\nautocoder: hint: do a\nautocoder: hint: -old\nautocoder: hint: +new\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
