// Package editorjson reads Anthropic's text-editor tool calls written as
// JSON text (FORMATS.md 4): the input object alone ({"command":
// "str_replace", "path": …}) or a whole tool_use block whose input it is,
// bare in the text or in a ```json fence, single-line or pretty-printed,
// several in one answer.
//
// Start reading at Parse. Commands: view (a read, answered with the file's
// numbered lines), create (a new file, file_text verbatim; an existing file
// with other content is refused), str_replace (old_str placed by the
// matcher: exactly one place, tolerant tiers recorded, never the first of
// several; no expandtabs, tabs stay tabs) and insert (after insert_line,
// counted as the tool counts lines: step.Op.AfterLine). undo_edit is not
// done: every step is a commit, and the answer says to run autocoder undo.
// One call is one step. feedback.go answers with the tool's own result
// strings, as tool_result objects.
//
// A JSON object is a call when its "command" is one of the tool's and it
// has a "path" (FORMATS.md 6). Objects are read where a line starts with
// "{" or "["; an object that is not a call is skipped whole, so a call
// quoted inside another JSON value is content. A call that cannot be read
// (a missing old_str, an insert_line that is not a number, broken JSON
// around a "command") is an error with its line.
package editorjson

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/protocol/tjson"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textpos"
)

// Dialect is this format's name in step.Step.Dialect and step.ParseError.
const Dialect = "editor-json"

// Commands are the tool's commands.
var commands = map[string]bool{"view": true, "create": true, "str_replace": true, "insert": true, "undo_edit": true}

// toolNames are the tool's names across its versions.
var toolNames = map[string]bool{"str_replace_based_edit_tool": true, "str_replace_editor": true}

// Source is the reader's record of a call, for the feedback.
type Source struct {
	ID      string // the tool_use id, "" for a bare input object
	Command string
	Path    string
	OldStr  string
	// ViewFrom and ViewTo are a view's view_range (1-based; ViewTo -1:
	// to the end); 0 when the whole file is asked for.
	ViewFrom, ViewTo int
}

// Parse returns the text-editor calls of text in document order.
func Parse(text []byte) []step.Item {
	if !fence.Contains(text, `"command"`) {
		return nil // every call, readable or not, names its command
	}
	var items []step.Item
	idx := textpos.NewIndex(text)
	n := 0
	for pos := 0; pos < len(text); {
		end := bytes.IndexByte(text[pos:], '\n')
		next := len(text)
		if end >= 0 {
			next = pos + end + 1
		}
		lead := pos
		for lead < next && (text[lead] == ' ' || text[lead] == '\t') {
			lead++
		}
		if lead >= len(text) || (text[lead] != '{' && text[lead] != '[') {
			pos = next
			continue
		}
		node, stop, _, err := tjson.ParseNode(text, idx.Pos(lead), nil)
		if err != nil {
			// Broken JSON is an error only where it looks like a call;
			// reading goes on after the error (linear on any text).
			if looksLikeCall(text[lead:min(max(stop, next), len(text))]) {
				se, _ := err.(*tjson.SyntaxError)
				e := &step.ParseError{Dialect: Dialect, Pos: idx.Pos(stop), Msg: "the tool call is not valid JSON: " + se.Msg,
					Quote: se.Quote, Fix: se.Fix}
				items = append(items, step.Item{Err: e, Start: lead, End: max(stop, lead+1)})
			}
			pos = max(next, lineAfter(text, stop))
			continue
		}
		for _, c := range calls(node) {
			n++
			items = append(items, build(c, n, idx))
		}
		pos = max(next, lineAfter(text, node.End))
	}
	return items
}

// lineAfter is the start of the line after the one holding off.
func lineAfter(text []byte, off int) int {
	if off >= len(text) {
		return len(text)
	}
	if i := bytes.IndexByte(text[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(text)
}

// looksLikeCall reports text that names a command of the tool.
func looksLikeCall(b []byte) bool {
	if !bytes.Contains(b, []byte(`"command"`)) {
		return false
	}
	for c := range commands {
		if bytes.Contains(b, []byte(`"`+c+`"`)) {
			return true
		}
	}
	return false
}

// call is one call found in a JSON value: its input object, and the
// tool_use block around it when there is one.
type call struct {
	input, outer *tjson.Node
}

// calls returns the calls in v: v itself (a bare input), v's input (a
// tool_use block), or the calls of an array's elements.
func calls(v *tjson.Node) []call {
	switch v.Kind {
	case tjson.Array:
		var out []call
		for _, e := range v.Elems {
			if e.Kind == tjson.Object {
				out = append(out, calls(e)...)
			}
		}
		return out
	case tjson.Object:
		if isInput(v) {
			return []call{{input: v, outer: v}}
		}
		in := v.Get("input")
		typ, name := v.Get("type"), v.Get("name")
		isUse := (typ != nil && typ.Kind == tjson.String && typ.Text == "tool_use") ||
			(name != nil && name.Kind == tjson.String && toolNames[name.Text])
		if in != nil && isInput(in) && isUse {
			return []call{{input: in, outer: v}}
		}
	}
	return nil
}

// isInput reports an object with a "command" of the tool and a "path".
func isInput(v *tjson.Node) bool {
	c := v.Get("command")
	return v.Kind == tjson.Object && c != nil && c.Kind == tjson.String && commands[c.Text] && v.Get("path") != nil
}

// build makes the step (or the error) of call c, the n-th of the text.
func build(c call, n int, idx *textpos.Index) step.Item {
	in := c.input
	start, end := c.outer.Pos.Offset, c.outer.End
	at := idx.Pos(start)
	src := Source{Command: in.Get("command").Text}
	if id := c.outer.Get("id"); c.outer != in && id != nil && id.Kind == tjson.String {
		src.ID = id.Text
	}
	bad := func(node *tjson.Node, msg, fix string) step.Item {
		p := at
		if node != nil {
			p = node.Pos
		}
		return step.Item{Start: start, End: end, Err: &step.ParseError{Dialect: Dialect, Pos: p, Msg: msg, Fix: fix, Source: src}}
	}
	str := func(key string, required bool) (string, *step.Item) {
		v := in.Get(key)
		if v == nil {
			if required {
				it := bad(in, fmt.Sprintf("%s needs %q", src.Command, key), fmt.Sprintf("give %q as a string", key))
				return "", &it
			}
			return "", nil
		}
		if v.Kind != tjson.String {
			it := bad(v, fmt.Sprintf("%q is a %s, not a string", key, v.Kind), fmt.Sprintf("give %q as a string", key))
			return "", &it
		}
		return v.Text, nil
	}
	path, bi := str("path", true)
	if bi != nil {
		return *bi
	}
	src.Path = path
	if path == "" {
		return bad(in.Get("path"), "the path is empty", "give the file's path relative to the repository root")
	}
	op := step.Op{Path: path, Pos: at}
	switch src.Command {
	case "view":
		op.Kind = step.OpRead
		if r := in.Get("view_range"); r != nil {
			if r.Kind != tjson.Array || len(r.Elems) != 2 || !isInt(r.Elems[0]) || !isInt(r.Elems[1]) {
				return bad(r, "view_range must be two line numbers [from, to]", "write view_range as [1, 20], or [10, -1] for line 10 to the end")
			}
			src.ViewFrom, src.ViewTo = int(r.Elems[0].Num), int(r.Elems[1].Num)
		}
	case "create":
		text, bi := str("file_text", true)
		if bi != nil {
			return *bi
		}
		op.Kind, op.Content, op.HasContent, op.NoReplace = step.OpWrite, []byte(text), true, true
	case "str_replace":
		old, bi := str("old_str", true)
		if bi != nil {
			return *bi
		}
		if old == "" {
			return bad(in.Get("old_str"), "old_str is empty: it would match anywhere", "quote the exact text to replace in old_str")
		}
		nw, bi := str("new_str", false)
		if bi != nil {
			return *bi
		}
		src.OldStr = old
		op.Kind, op.Edits = step.OpReplace, []step.Edit{{Old: old, New: nw, Pos: in.Get("old_str").Pos}}
	case "insert":
		ln := in.Get("insert_line")
		if ln == nil || !isInt(ln) {
			return bad(ln, "insert needs insert_line, a line number (0: before the first line)", "give insert_line as a number")
		}
		key := "new_str"
		if in.Get(key) == nil && in.Get("insert_text") != nil {
			key = "insert_text"
		}
		text, bi := str(key, true)
		if bi != nil {
			return *bi
		}
		k := int(ln.Num)
		op.Kind, op.Content, op.HasContent, op.AfterLine = step.OpAppend, []byte(text), true, &k
	case "undo_edit":
		return bad(in.Get("command"), "undo_edit is not done here: autocoder keeps every edit as a commit on the work branch",
			"to take back the last edit, the user runs `autocoder undo`; to change the file, send the edit that gives the content you want")
	}
	st := &step.Step{ID: Dialect + "-" + strconv.Itoa(n), Dialect: Dialect, Pos: at, Ops: []step.Op{op}, Source: src}
	return step.Item{Step: st, Start: start, End: end}
}

func isInt(v *tjson.Node) bool {
	return v != nil && v.Kind == tjson.Number && v.Num == float64(int(v.Num)) && v.Num > -1e9 && v.Num < 1e9
}
