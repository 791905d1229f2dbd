package acjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"strings"
)

// The executor's answer, in the shape the prompt teaches (DIALECTS.md §1,
// "The executor's answer"). Fields beyond that shape are omitted when empty.
type answer struct {
	Metadata     answerMeta   `json:"metadata"`
	FileActions  []fileAction `json:"file_actions"`
	ProgramExecs programExecs `json:"program_execs"`
	Error        string       `json:"error,omitempty"`
	// Repairs tells the model what it wrote loosely, so it can write it
	// strictly next time.
	Repairs []step.Repair `json:"repairs,omitempty"`
}

type answerMeta struct {
	StepID  string `json:"step_id"`
	Reason  string `json:"reason"`
	Summary string `json:"summary"`
}

type fileAction struct {
	Status   string        `json:"status"` // success, failure, refused, rolled_back or not_attempted
	Action   string        `json:"action"` // the request's own action_type
	Path     string        `json:"path"`
	Replaces []replaceInfo `json:"replaces,omitempty"`
	Message  string        `json:"message,omitempty"`
	Error    string        `json:"error,omitempty"`
	Content  string        `json:"content,omitempty"`
}

type replaceInfo struct {
	ID       string `json:"id"`
	Replaced bool   `json:"replaced"`
	Matches  int    `json:"matches"`
	Verified bool   `json:"verified"`
	// AlreadyApplied: the old text was gone and the new text there, so
	// nothing was replaced; the model sent the edit twice.
	AlreadyApplied bool `json:"already_applied,omitempty"`
	// Warning: the edit's old and new texts were equal, a no-op the seed
	// calls an error; it is reported, not failed, and replaced nothing.
	Warning string `json:"warning,omitempty"`
}

type programExec struct {
	name       string
	Status     step.ProgramStatus `json:"status"` // success, failure or timeout
	Stdout     string             `json:"stdout"`
	Stderr     string             `json:"stderr"`
	ReturnCode int                `json:"returncode"`
	Runtime    float64            `json:"runtime"` // seconds
	Error      string             `json:"error,omitempty"`
}

// programExecs is a JSON object keyed by program name that keeps the order
// the programs ran in (a Go map would sort the names).
type programExecs []programExec

func (p programExecs) MarshalJSON() ([]byte, error) {
	return orderedObject(p, func(e programExec) string { return e.name })
}

// orderedObject writes items as one JSON object, each under key(item), in
// the items' order (a Go map would sort the keys).
func orderedObject[T any](items []T, key func(T) string) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, e := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := marshal(key(e))
		if err != nil {
			return nil, err
		}
		v, err := marshal(e)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping: the answer is read by a
// model, for which "<" is clearer than "\u003c".
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// kindActions names an op kind in this dialect, for ops that did not come
// from an autocoder JSON block.
var kindActions = map[step.OpKind]string{
	step.OpWrite:   "create_file",
	step.OpReplace: "replace_file",
	step.OpDelete:  "delete_file",
	step.OpMkdir:   "create_directory",
	step.OpRmdir:   "delete_directory",
	step.OpRead:    "read_file",
	step.OpList:    "list_tree",
}

// Feedback writes the executor's answer to results: one #####-- … --#####
// block per result, in order, each holding the documented JSON (metadata,
// file_actions, program_execs). Each file action names the request's own
// action_type (from Step.Source); hints of the matcher and the engine go
// into "error" after the error itself, since that is the field a model
// reads. metadata.summary says what became of the step. A block that could
// not be read (Result.ParseErr) is answered with its error, line and column,
// so the model can resend it.
func Feedback(results []step.Result) []byte {
	var out bytes.Buffer
	for i, r := range results {
		if i > 0 {
			out.WriteByte('\n')
		}
		var v any = answerFor(r)
		if r.Runtime {
			v = runtimeFor(r)
		}
		raw, err := marshal(v)
		var body bytes.Buffer
		if err == nil {
			err = json.Indent(&body, raw, "", "  ")
		}
		if err != nil {
			// Only a value json cannot encode gets here, and the answer
			// holds strings, numbers and booleans only.
			panic(fmt.Sprintf("acjson: encoding feedback: %v", err))
		}
		out.Write(Opener)
		out.WriteByte('\n')
		out.Write(body.Bytes())
		out.WriteByte('\n')
		out.Write(Closer)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

func answerFor(r step.Result) answer {
	r = step.Rehinted(r, step.ReasonLosesCode, "send a replace_file with modify_content (old_content and new_content) that replaces "+
		"only the part that changes, or a replace_file with the whole file_content and nothing left out")
	a := answer{FileActions: []fileAction{}, ProgramExecs: programExecs{}}
	a.Metadata.StepID = r.StepID
	if r.Step != nil {
		if a.Metadata.StepID == "" {
			a.Metadata.StepID = r.Step.ID
		}
		a.Metadata.Reason = r.Step.Reason
		a.Repairs = r.Step.Repairs
	}
	if pe := r.ParseErr; pe != nil {
		if u, ok := pe.Source.(*Unread); ok {
			if a.Metadata.StepID == "" {
				a.Metadata.StepID = u.StepID
			}
			a.Metadata.Reason = u.Reason
		}
		a.Metadata.Summary = "the block could not be read; nothing of it was applied"
		a.Error = withHint(fmt.Sprintf("line %d, column %d: %s", pe.Pos.Line, pe.Pos.Col, pe.Msg), pe.Fix)
		if pe.Quote != "" {
			a.Error = withHint(fmt.Sprintf("line %d, column %d: %s (near %q)", pe.Pos.Line, pe.Pos.Col, pe.Msg, pe.Quote), pe.Fix)
		}
		return a
	}
	a.Metadata.Summary = summary(r)
	a.Error = withHint(r.Error, r.Hint)

	var src *Source
	var ops []step.Op
	if r.Step != nil {
		src, _ = r.Step.Source.(*Source)
		ops = r.Step.Ops
	}
	for i, or := range r.Ops {
		fa := fileAction{
			Status:  "success",
			Path:    or.Path,
			Message: or.Message,
			Error:   withHint(or.Error, or.Hint),
			Content: or.Output,
		}
		if fa.Content == "" {
			fa.Content = or.Diff
		}
		switch step.OpOutcome(r, or) {
		case step.OutcomeFailed:
			fa.Status = "failure"
		case step.OutcomeRefused:
			fa.Status = "refused" // by the safety policy: not to be sent again as it is
		case step.OutcomeNotAttempted:
			fa.Status = "not_attempted" // an earlier operation or step failed
		case step.OutcomeRolledBack:
			fa.Status = "rolled_back" // not applied: another part of its step failed; the file is as before
		}
		fa.Action = kindActions[or.Kind]
		if src != nil && i < len(src.Actions) {
			fa.Action = src.Actions[i]
		}
		if fa.Action == "" {
			fa.Action = string(or.Kind)
		}
		if or.Kind == step.OpReplace {
			fa.Replaces = replaces(or, ops, i)
		}
		a.FileActions = append(a.FileActions, fa)
	}
	seen := map[string]int{}
	for _, pr := range r.Programs {
		name := pr.Name
		// Two programs of one name would collide as keys of one object.
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s#%d", name, seen[name])
		}
		status := pr.Status
		switch status {
		case step.ProgramSuccess, step.ProgramTimeout, step.ProgramRefused, step.ProgramRunning, step.ProgramTerminated, step.ProgramNotAttempted:
		default:
			status = step.ProgramFailure // the documented values; Error says why
		}
		a.ProgramExecs = append(a.ProgramExecs, programExec{
			name: name, Status: status, Stdout: pr.Stdout, Stderr: pr.Stderr,
			ReturnCode: pr.ReturnCode, Runtime: pr.Runtime, Error: withHint(pr.Error, pr.Hint),
		})
	}
	return a
}

// runtime is seed 001's program_runtime_feedback: the new output of each
// program that keeps running (or ended, or was stopped) since the last answer.
type runtime struct {
	Type      string          `json:"type"`
	RequestID string          `json:"request_id"`
	Programs  runtimePrograms `json:"programs"`
	Commit    string          `json:"program_commit,omitempty"`
}

type runtimeProgram struct {
	Name       string             `json:"name"`
	Status     step.ProgramStatus `json:"status"` // running, terminated, success, failure, timeout
	Runtime    float64            `json:"runtime"`
	Stdout     string             `json:"stdout"`
	Stderr     string             `json:"stderr"`
	ReturnCode *int               `json:"returncode,omitempty"` // once it has ended
	Error      string             `json:"error,omitempty"`
}

// runtimePrograms is a JSON object keyed by program name, in order.
type runtimePrograms []runtimeProgram

func (p runtimePrograms) MarshalJSON() ([]byte, error) {
	return orderedObject(p, func(e runtimeProgram) string { return e.Name })
}

func runtimeFor(r step.Result) runtime {
	a := runtime{Type: "program_runtime_feedback", RequestID: r.StepID, Programs: runtimePrograms{}, Commit: r.ProgramCommit}
	for _, pr := range r.Programs {
		rp := runtimeProgram{Name: pr.Name, Status: pr.Status, Runtime: pr.Runtime, Stdout: pr.Stdout, Stderr: pr.Stderr,
			Error: withHint(pr.Error, pr.Hint)}
		if pr.Status != step.ProgramRunning {
			rc := pr.ReturnCode
			rp.ReturnCode = &rc
		}
		a.Programs = append(a.Programs, rp)
	}
	return a
}

// replaces reports each edit of the op: the matcher's count where it got to
// the edit, and replaced/verified only when the whole op succeeded, since
// an op's edits are applied together or not at all.
func replaces(or step.OpResult, ops []step.Op, i int) []replaceInfo {
	ok := or.Status == step.StatusApplied || or.Status == step.StatusPlanned || or.Status == step.StatusUnchanged
	var edits []step.Edit
	if i < len(ops) && ops[i].Kind == step.OpReplace {
		edits = ops[i].Edits
	}
	n := len(edits)
	for _, rr := range or.Replaces {
		n = max(n, rr.Index+1)
	}
	out := make([]replaceInfo, n)
	for k := range out {
		out[k] = replaceInfo{ID: fmt.Sprintf("edit-%d", k+1), Replaced: ok, Verified: ok}
		if k < len(edits) && edits[k].Identifier != "" {
			out[k].ID = edits[k].Identifier
		}
	}
	for _, rr := range or.Replaces {
		if rr.Index >= 0 {
			out[rr.Index].Matches = rr.Matches
			if rr.AlreadyApplied {
				out[rr.Index].Replaced, out[rr.Index].AlreadyApplied = false, true
			}
			if rr.NoOp {
				out[rr.Index].Replaced = false
				out[rr.Index].Warning = "no-op: old_content equals new_content, so nothing was replaced; send only edits that change something"
			}
		}
	}
	return out
}

func summary(r step.Result) string {
	if r.Step != nil && r.Step.Finish && r.Step.Summary != "" {
		// The task's own summary is the answer to a finish step.
		return r.Step.Summary
	}
	switch r.Status {
	case step.StatusApplied:
		if r.Commit != "" {
			return "applied as commit " + r.Commit
		}
		return "applied"
	case step.StatusUnchanged:
		return "nothing to change: no commit"
	case step.StatusPlanned:
		return "dry run: would be applied; nothing was changed"
	case step.StatusFailed:
		for _, op := range r.Ops {
			if op.Status == step.StatusRolledBack {
				return "failed and rolled back: nothing of this step remains"
			}
		}
		// Nothing was done (the first operation failed, or a dry run,
		// which applies nothing): there was nothing to roll back.
		return "failed: nothing of this step was applied"
	case step.StatusSkipped:
		return "skipped: an earlier step failed"
	case step.StatusRead:
		return "read only: nothing was changed"
	}
	return string(r.Status)
}

func withHint(err, hint string) string {
	switch {
	case hint == "":
		return err
	case err == "":
		return "hint: " + hint
	}
	return strings.TrimRight(err, "\n") + "\nhint: " + hint
}
