package acjson

import (
	"fmt"
	"github.com/autocoder/autocoder/step"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/autocoder/autocoder/protocol/tjson"
	suggestpkg "github.com/autocoder/autocoder/suggest"
)

// Source is the block's own record of the request, kept in step.Step.Source
// so that Feedback can answer in the words the model used.
type Source struct {
	Type    string   // "operate", "finish" or "check_program"
	Actions []string // the action_type of each op, in the order of Step.Ops
}

// Unread is what the metadata of a block that could not be read said, in
// step.ParseError.Source: the answer carries the model's own step_id and
// reason ("" where the block gave none, or the error came first).
type Unread struct{ StepID, Reason string }

// The action types and what they become.
var actions = map[string]step.OpKind{
	"create_file":      step.OpWrite,
	"replace_file":     step.OpReplace, // or OpWrite with file_content and no modify_content
	"delete_file":      step.OpDelete,
	"create_directory": step.OpMkdir,
	"delete_directory": step.OpRmdir,
	"read_file":        step.OpRead,
	"list_tree":        step.OpList,
}

// knownActions lists the action types for hints, in the prompt's order.
const knownActions = "create_file, replace_file, delete_file, read_file, create_directory, delete_directory, list_tree"

// The fields of each object. Fields mapped to false are ones the prompts
// themselves show but the executor does not use: they are ignored without
// a repair.
var (
	topFields      = map[string]bool{"metadata": true, "type": true, "file_operations": true, "program_operations": true}
	metadataFields = map[string]bool{"step_id": true, "reason": true, "status": true, "summary": true, "timestamp": false, "type": false}
	fileOpFields   = map[string]bool{"action_type": true, "path": true, "file_content": true, "modify_content": true}
	editFields     = map[string]bool{"identifier": true, "old_content": true, "new_content": true}
	programFields  = map[string]bool{"name": true, "command": true, "set_timeout": true, "expected_output": true, "terminal": true, "keep_running": true, "reason": false}
)

// shapeError stops build at the first field that is wrong.
type shapeError struct{ err *step.ParseError }

type builder struct {
	repairs []step.Repair
}

// build maps the JSON of block number n to a step, or to the error of the
// first field that is wrong. repairs are those the JSON needed already.
func build(root *tjson.Node, n int, at step.Pos, repairs []step.Repair) (st *step.Step, perr *step.ParseError) {
	b := &builder{repairs: repairs}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(shapeError)
			if !ok {
				panic(r)
			}
			if st != nil {
				// What the metadata said before the wrong field, so that
				// the answer carries the model's own step_id and reason.
				se.err.Source = &Unread{StepID: st.ID, Reason: st.Reason}
				if st.ID == fmt.Sprintf("step-%d", n) {
					se.err.Source.(*Unread).StepID = ""
				}
			}
			st, perr = nil, se.err
		}
	}()
	if root.Kind != tjson.Object {
		b.fail(root.Pos, fmt.Sprintf("the block holds a JSON %s; want an object", root.Kind),
			`write one object per block: #####-- {"metadata": {...}, "type": "operate", "file_operations": [...]} --#####`)
	}
	b.fields(root, "the block", topFields)
	src := &Source{Type: "operate"}
	st = &step.Step{Dialect: Dialect, Pos: at, Source: src, ID: fmt.Sprintf("step-%d", n)}

	if md := root.Get("metadata"); md != nil {
		b.object(md, "metadata")
		b.fields(md, "metadata", metadataFields)
		if id := b.str(md, "step_id"); id != "" {
			st.ID = id
		}
		st.Reason = b.str(md, "reason")
		st.Summary = b.str(md, "summary")
		b.str(md, "status")
	}
	if t := root.Get("type"); t != nil {
		src.Type = b.str(root, "type")
		switch src.Type {
		case "operate", "finish", "check_program":
		case "operate/finish":
			b.fail(t.Pos, `"type" is the template's "operate/finish"`,
				`choose one: "operate" to apply operations, "finish" to end the task with a summary`)
		default:
			b.fail(t.Pos, fmt.Sprintf("unknown type %q", src.Type), `write "operate", "finish" or "check_program"`)
		}
	}
	fileOps := b.array(root, "file_operations")
	progOps := b.array(root, "program_operations")
	switch src.Type {
	case "finish":
		for _, list := range []*tjson.Node{fileOps, progOps} {
			if list != nil && len(list.Elems) > 0 {
				b.fail(list.Pos, "a finish step carries operations",
					`put the operations in an "operate" step before the "finish" step, which carries only metadata.summary`)
			}
		}
		st.Finish = true
	case "check_program":
		if fileOps != nil && len(fileOps.Elems) > 0 {
			b.fail(fileOps.Pos, "a check_program step carries file_operations",
				`put file operations in an "operate" step; check_program only stops programs`)
		}
		if progOps != nil {
			for _, p := range progOps.Elems {
				st.Programs = append(st.Programs, b.terminate(p))
			}
		}
	default:
		if fileOps != nil {
			for _, op := range fileOps.Elems {
				kind, o := b.fileOp(op)
				st.Ops = append(st.Ops, o)
				src.Actions = append(src.Actions, kind)
			}
		}
		if progOps != nil {
			for i, p := range progOps.Elems {
				st.Programs = append(st.Programs, b.program(p, i+1))
			}
		}
	}
	// The reader's repairs and the shape's come in two runs; a reader of
	// the list wants them in document order.
	sort.SliceStable(b.repairs, func(i, j int) bool { return b.repairs[i].Pos.Offset < b.repairs[j].Pos.Offset })
	st.Repairs = b.repairs
	return st, nil
}

func (b *builder) fail(at tjson.Pos, msg, hint string) {
	panic(shapeError{&step.ParseError{Dialect: Dialect, Pos: step.Pos(at), Msg: msg, Fix: hint}})
}

func (b *builder) repair(at tjson.Pos, format string, args ...any) {
	b.repairs = append(b.repairs, step.Repair{Pos: step.Pos(at), What: fmt.Sprintf(format, args...)})
}

func (b *builder) object(n *tjson.Node, what string) {
	if n.Kind != tjson.Object {
		b.fail(n.Pos, fmt.Sprintf("%s must be an object, not a %s", what, n.Kind), fmt.Sprintf("write %s as {...}", what))
	}
}

// fields checks the member names of obj: a field given twice is an error
// (which one was meant?), an unknown one is ignored with a repair.
func (b *builder) fields(obj *tjson.Node, where string, known map[string]bool) {
	seen := make(map[string]bool, len(obj.Members))
	for _, m := range obj.Members {
		used, ok := known[m.Key]
		if seen[m.Key] && used {
			b.fail(m.KeyPos, fmt.Sprintf("the field %q appears twice in %s", m.Key, where), "keep one of them")
		}
		seen[m.Key] = true
		if !ok {
			b.repair(m.KeyPos, "ignored the unknown field %q in %s%s", m.Key, where, suggest(m.Key, known))
		}
	}
}

// strays names the unknown fields of obj, for the hint of a missing field:
// the model mostly wrote it under another name ("file_path", "old"), and
// is told which of its fields was not read, and what it probably meant.
func strays(obj *tjson.Node, where string, known map[string]bool) string {
	var b strings.Builder
	for _, m := range obj.Members {
		if _, ok := known[m.Key]; ok {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "; %q is not a field of %s%s", m.Key, where, suggest(m.Key, known))
		} else {
			fmt.Fprintf(&b, ", nor is %q%s", m.Key, suggest(m.Key, known))
		}
	}
	return b.String()
}

// suggest names a known field that an unknown one probably meant
// (suggest.Closest), among the fields the place uses.
func suggest(key string, known map[string]bool) string {
	var names []string
	for k, used := range known {
		if used {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	if m := suggestpkg.Closest(key, names); m != "" {
		return fmt.Sprintf(" (did you mean %q?)", m)
	}
	return ""
}

// str returns the string field key of obj, "" when absent.
func (b *builder) str(obj *tjson.Node, key string) string {
	v := obj.Get(key)
	if v == nil {
		return ""
	}
	if v.Kind != tjson.String {
		b.fail(v.Pos, fmt.Sprintf("%q must be a string, not a %s", key, v.Kind), fmt.Sprintf(`write "%s": "..."`, key))
	}
	return v.Text
}

// array returns the array field key of obj, nil when absent or null.
func (b *builder) array(obj *tjson.Node, key string) *tjson.Node {
	v := obj.Get(key)
	if v == nil || v.Kind == tjson.Null {
		return nil
	}
	if v.Kind != tjson.Array {
		b.fail(v.Pos, fmt.Sprintf("%q must be an array, not a %s", key, v.Kind), fmt.Sprintf(`write "%s": [{...}, ...]`, key))
	}
	return v
}

// unused records a field present although the action does not use it.
func (b *builder) unused(obj *tjson.Node, action string, keys ...string) {
	for _, k := range keys {
		for _, m := range obj.Members {
			if m.Key == k {
				b.repair(m.KeyPos, "ignored %s, which %s does not use", k, action)
			}
		}
	}
}

func (b *builder) fileOp(n *tjson.Node) (string, step.Op) {
	b.object(n, "an entry of file_operations")
	b.fields(n, "a file operation", fileOpFields)
	at := n.Get("action_type")
	if at == nil {
		b.fail(n.Pos, "the file operation has no action_type", "add \"action_type\": one of "+knownActions+strays(n, "a file operation", fileOpFields))
	}
	action := b.str(n, "action_type")
	kind, ok := actions[action]
	if !ok {
		hint := "write one of " + knownActions
		if strings.Contains(action, "/") {
			hint = "choose one action per operation: " + knownActions
		}
		b.fail(at.Pos, fmt.Sprintf("unknown action_type %q", action), hint)
	}
	op := step.Op{Kind: kind, Pos: step.Pos(n.Pos)}
	if p := n.Get("path"); p == nil || b.str(n, "path") == "" {
		where := n.Pos
		if p != nil {
			where = p.Pos
		}
		b.fail(where, fmt.Sprintf("the %s operation has no path", action), `add "path": "dir/file.ext", relative to the repository root`+strays(n, "a file operation", fileOpFields))
	}
	op.Path = b.str(n, "path")
	switch action {
	case "create_file":
		if n.Get("file_content") == nil {
			b.fail(n.Pos, "create_file has no file_content", `add "file_content": the whole file ("" for an empty file)`+strays(n, "a file operation", fileOpFields))
		}
		op.Content, op.HasContent = []byte(b.str(n, "file_content")), true
		b.unused(n, action, "modify_content")
	case "replace_file":
		b.replace(n, &op)
	case "create_directory":
		op.Parents = true
		b.unused(n, action, "file_content", "modify_content")
	case "list_tree":
		op.Narrow = "list_tree a subfolder of it (its path)"
		b.unused(n, action, "file_content", "modify_content")
	default:
		b.unused(n, action, "file_content", "modify_content")
	}
	return action, op
}

// replace reads a replace_file: edits in modify_content, or, with no edit,
// a whole new file_content.
func (b *builder) replace(n *tjson.Node, op *step.Op) {
	mc := b.array(n, "modify_content")
	fc := n.Get("file_content")
	content := b.str(n, "file_content")
	switch {
	case mc != nil && len(mc.Elems) > 0:
		if content != "" {
			b.fail(fc.Pos, "replace_file has both modify_content and a file_content",
				"keep modify_content to edit parts of the file, or drop it to replace the whole file with file_content")
		}
		b.unused(n, "replace_file with modify_content", "file_content")
		for _, e := range mc.Elems {
			op.Edits = append(op.Edits, b.edit(e))
		}
	case fc != nil:
		op.Kind = step.OpWrite
		op.Content, op.HasContent = []byte(content), true
		if mc != nil {
			b.unused(n, "replace_file with file_content", "modify_content")
		}
	default:
		at := n.Pos
		if mc != nil {
			at = mc.Pos
		}
		b.fail(at, "replace_file has nothing to replace",
			`add "modify_content": [{"identifier": ..., "old_content": ..., "new_content": ...}], or "file_content" to replace the whole file`+strays(n, "a file operation", fileOpFields))
	}
}

func (b *builder) edit(n *tjson.Node) step.Edit {
	b.object(n, "an entry of modify_content")
	b.fields(n, "a modify_content entry", editFields)
	e := step.Edit{Identifier: b.str(n, "identifier"), Pos: step.Pos(n.Pos)}
	old := n.Get("old_content")
	if old == nil {
		b.fail(n.Pos, "the modify_content entry has no old_content", `add "old_content": the exact text to replace, with 1-3 lines of context`+strays(n, "a modify_content entry", editFields))
	}
	// An empty old_content, or one equal to new_content, is read as written:
	// the matcher refuses it with its typed error (exit 1), as in every
	// dialect, with the op's line in the response.
	e.Old = b.str(n, "old_content")
	nw := n.Get("new_content")
	if nw == nil {
		b.fail(n.Pos, "the modify_content entry has no new_content", `add "new_content": the text that replaces old_content ("" to delete it)`+strays(n, "a modify_content entry", editFields))
	}
	e.New = b.str(n, "new_content")
	return e
}

// program reads an entry of program_operations in an operate step.
func (b *builder) program(n *tjson.Node, k int) step.Program {
	b.object(n, "an entry of program_operations")
	b.fields(n, "a program operation", programFields)
	p := step.Program{Name: b.str(n, "name"), Shell: true, Pos: step.Pos(n.Pos), ExpectedOutput: b.str(n, "expected_output")}
	if p.Name == "" {
		p.Name = fmt.Sprintf("program-%d", k)
	}
	if t := n.Get("terminal"); t != nil && t.Kind == tjson.Bool && t.Bool {
		b.fail(t.Pos, `"terminal": true in an operate step`, `to stop a running program send a step with "type": "check_program"`)
	}
	b.flag(n, "terminal")
	// keep_running: a server or a watcher, which runs on after the step;
	// each later answer carries its new output (program_runtime_feedback)
	// until check_program stops it (seed 001, section 4).
	p.Live = b.flag(n, "keep_running")
	p.Command = b.str(n, "command")
	if strings.TrimSpace(p.Command) == "" {
		at := n.Pos
		if c := n.Get("command"); c != nil {
			at = c.Pos
		}
		b.fail(at, fmt.Sprintf("the program %q has no command", p.Name), `add "command": "the shell command to run"`)
	}
	if t := n.Get("set_timeout"); t != nil && t.Kind != tjson.Null {
		if t.Kind != tjson.Number || t.Num < 0 || math.IsInf(t.Num, 0) {
			b.fail(t.Pos, "set_timeout must be a number of seconds, 0 or more", `write "set_timeout": 30`)
		}
		p.Timeout = time.Duration(t.Num * float64(time.Second))
	}
	return p
}

// terminate reads an entry of program_operations in a check_program step.
func (b *builder) terminate(n *tjson.Node) step.Program {
	b.object(n, "an entry of program_operations")
	b.fields(n, "a program operation", programFields)
	p := step.Program{Name: b.str(n, "name"), Terminate: true, Pos: step.Pos(n.Pos)}
	if p.Name == "" {
		b.fail(n.Pos, "the check_program entry names no program", `add "name": the name of the running program to stop`)
	}
	if !b.flag(n, "terminal") {
		b.fail(n.Pos, fmt.Sprintf("the check_program entry for %q lacks \"terminal\": true", p.Name),
			`write "terminal": true to stop the program; to run a command use an "operate" step`)
	}
	b.unused(n, "check_program", "command", "set_timeout", "expected_output", "keep_running")
	return p
}

// flag returns the boolean field key of obj, false when absent.
func (b *builder) flag(obj *tjson.Node, key string) bool {
	v := obj.Get(key)
	if v == nil {
		return false
	}
	if v.Kind != tjson.Bool {
		b.fail(v.Pos, fmt.Sprintf("%q must be true or false, not a %s", key, v.Kind), fmt.Sprintf(`write "%s": true`, key))
	}
	return v.Bool
}

// ActionTypes are the action_type values this reader knows, in the
// prompt's order (the prompt package checks that it teaches every one).
func ActionTypes() []string { return strings.Split(knownActions, ", ") }
