package applypatch

import (
	"bytes"
	"sort"
	"strings"

	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/protocol/tjson"
	"github.com/autocoder/autocoder/step"
)

// The tool-call forms, written as JSON text (FORMATS.md 1.3): an object
// whose "input" (or "cmd", "command", "patch") holds a whole patch, as a
// custom tool call or Codex's shell call writes it; and the Responses API's
// apply_patch_call items, one operation each, whose "diff" is the body of
// one operation without the envelope. Consecutive apply_patch_call items
// (nothing but white space between them) are one step.

// callKeys are the texts that make a JSON object worth reading: every
// tool-call form holds one of them.
var callKeys = [][]byte{[]byte(`"apply_patch_call"`), []byte(beginPatch)}

// lookBack is how many lines above a key the object's opening brace may
// stand; it bounds the work per key, so reading stays linear.
const lookBack = 64

// calls finds the tool-call forms outside the spans of the envelopes found.
func (r *reader) calls(found []step.Item) []step.Item {
	var keys []int
	for _, k := range callKeys {
		for off := 0; ; {
			i := fence.Index(r.text[off:], string(k))
			if i < 0 {
				break
			}
			keys = append(keys, off+i)
			off += i + len(k)
		}
	}
	sort.Ints(keys)
	var items []step.Item
	group := -1 // index in items of the apply_patch_call run being read
	done := 0   // the end of the last object read
	// Each opening brace is read at most once, and all the reading
	// together at most a few times the text: a text built to make every
	// key start a long, broken object would otherwise cost the square of
	// its length. Past the budget the rest is refused, not skipped.
	tried := map[int]bool{}
	budget := 4*len(r.text) + 1<<20
	for _, k := range keys {
		if k < done || inside(found, k) {
			continue
		}
		if budget < 0 {
			items = append(items, step.Item{Start: k, End: k + 1, Err: &step.ParseError{Dialect: Dialect, Pos: r.pos(k),
				Msg: "too many JSON objects that could not be read: stopped looking for apply_patch tool calls here",
				Fix: "send each tool call as one valid JSON object on its own lines"}})
			break
		}
		node := r.objectAround(k, done, tried, &budget)
		if node == nil {
			continue
		}
		done = node.End
		if node.Get("type") != nil && node.Get("type").Text == "apply_patch_call" || node.Get("operation") != nil {
			op, err := r.operation(node)
			if group >= 0 && items[group].Step != nil && err == nil && len(bytes.TrimSpace(r.text[items[group].End:node.Pos.Offset])) == 0 {
				s := items[group].Step
				s.Ops = append(s.Ops, op.ops...)
				src := s.Source.(Source)
				src.Files = append(src.Files, op.files...)
				ns := newStep(s.Ops, src.Files, nil)
				ns.Pos = s.Pos
				*s = *ns
				items[group].End = node.End
				continue
			}
			it := step.Item{Start: node.Pos.Offset, End: node.End, Err: err}
			if err == nil {
				it.Step = newStep(op.ops, op.files, nil)
				it.Step.Pos = node.Pos
			}
			items = append(items, it)
			group = len(items) - 1
			continue
		}
		group = -1
		patch := patchString(node)
		if patch == nil {
			continue
		}
		it := r.inner(patch, node.Pos)
		if w := node.Get("workdir"); w != nil && w.Kind == tjson.String && strings.Trim(w.Text, "./") != "" {
			// As a cd before a heredoc: the paths are another folder's.
			it = step.Item{Err: &step.ParseError{Dialect: Dialect, Pos: w.Pos, Quote: quote(w.Text),
				Msg: "an apply_patch call with a workdir: autocoder applies patches from the repository root and does not follow it",
				Fix: "write the paths relative to the repository root and drop the workdir"}}
		}
		it.Start, it.End = node.Pos.Offset, node.End
		items = append(items, it)
	}
	return items
}

// inside reports whether offset k lies in the span of one of items.
func inside(items []step.Item, k int) bool {
	for _, it := range items {
		if k >= it.Start && k < it.End {
			return true
		}
	}
	return false
}

// objectAround reads the JSON object that holds offset k: it opens on one of
// the lookBack lines at or above k's with a "{" as first character, at or
// after from.
func (r *reader) objectAround(k, from int, tried map[int]bool, budget *int) *tjson.Node {
	ls := r.lines
	i := sort.Search(len(ls), func(i int) bool { return ls[i].Off > k }) - 1
	for tries := 0; i >= 0 && tries < lookBack && ls[i].Off >= from; i, tries = i-1, tries+1 {
		t := strings.TrimLeft(ls[i].S, " \t")
		if !strings.HasPrefix(t, "{") {
			continue
		}
		at := ls[i].Off + len(ls[i].S) - len(t)
		if tried[at] {
			continue
		}
		tried[at] = true
		node, end, _, err := tjson.ParseNode(r.text, r.pos(at), nil)
		*budget -= end - at
		if err != nil || node.Kind != tjson.Object || end <= k {
			continue
		}
		return node
	}
	return nil
}

// patchString returns the string of a tool call that holds a whole patch.
func patchString(n *tjson.Node) *tjson.Node {
	var find func(n *tjson.Node, depth int) *tjson.Node
	find = func(n *tjson.Node, depth int) *tjson.Node {
		if n == nil || depth > 3 {
			return nil
		}
		switch n.Kind {
		case tjson.String:
			if strings.HasPrefix(strings.TrimSpace(n.Text), beginPatch) || strings.Contains(n.Text, "\n"+beginPatch) {
				return n
			}
		case tjson.Array:
			for _, e := range n.Elems {
				if s := find(e, depth+1); s != nil {
					return s
				}
			}
		case tjson.Object:
			for _, k := range []string{"input", "patch", "cmd", "command", "arguments"} {
				if s := find(n.Get(k), depth+1); s != nil {
					return s
				}
			}
		}
		return nil
	}
	return find(n, 0)
}

// inner reads the patch held in a JSON string; every position is the
// object's, since the string's lines have none in the response.
func (r *reader) inner(s *tjson.Node, at step.Pos) step.Item {
	sub := &reader{text: []byte(s.Text), at: &at}
	ls := fence.Lines(sub.text, 0)
	b := 0
	for b < len(ls) && strings.TrimSpace(ls[b].S) != beginPatch {
		b++
	}
	e := b + 1
	for e < len(ls) && strings.TrimSpace(ls[e].S) != endPatch {
		e++
	}
	if b == len(ls) || e >= len(ls) {
		return step.Item{Err: sub.errAt(ls, len(ls), "the patch in this tool call has no *** End Patch: it was cut off",
			"end the patch with a line *** End Patch after its last operation; nothing of it was applied")}
	}
	it := sub.item(ls[b+1:e], true, 0, 0)
	if it.Step != nil {
		it.Step.Pos = at
	}
	return it
}

// callOp is what one apply_patch_call item does.
type callOp struct {
	ops   []step.Op
	files []File
}

// operation reads one apply_patch_call item.
func (r *reader) operation(n *tjson.Node) (callOp, *step.ParseError) {
	sub := &reader{at: &n.Pos}
	fail := func(msg, fix string) (callOp, *step.ParseError) {
		return callOp{}, &step.ParseError{Dialect: Dialect, Pos: n.Pos, Msg: msg, Fix: fix}
	}
	op := n.Get("operation")
	if op == nil || op.Kind != tjson.Object {
		return fail(`an apply_patch_call without an "operation" object`, `write "operation": {"type": "update_file", "path": "…", "diff": "…"}`)
	}
	str := func(key string) string {
		if v := op.Get(key); v != nil && v.Kind == tjson.String {
			return v.Text
		}
		return ""
	}
	path := strings.TrimSpace(str("path"))
	if path == "" {
		return fail(`the apply_patch_call operation has no "path"`, `give the file's path relative to the repository root in "path"`)
	}
	ls := fence.Lines([]byte(str("diff")), 0)
	switch kind := str("type"); kind {
	case "create_file":
		var content strings.Builder
		for i, l := range ls {
			if !strings.HasPrefix(l.S, "+") {
				if l.S == "" && i == len(ls)-1 {
					break
				}
				return callOp{}, sub.errAt(ls, i, "a line of create_file "+path+" does not start with +",
					"start every line of the new file's diff with + (an empty line is a lone +)")
			}
			content.WriteString(l.S[1:])
			content.WriteByte('\n')
		}
		return callOp{ops: []step.Op{{Kind: step.OpWrite, Path: path, Content: []byte(content.String()), HasContent: true, Pos: n.Pos}},
			files: []File{{"A", path}}}, nil
	case "delete_file":
		return callOp{ops: []step.Op{{Kind: step.OpDelete, Path: path, Pos: n.Pos}}, files: []File{{"D", path}}}, nil
	case "update_file":
		edits, next, _, err := sub.chunks(ls, 0, path)
		if err != nil {
			return callOp{}, err
		}
		if next < len(ls) {
			return callOp{}, sub.errAt(ls, next, "an operation header inside an update_file diff",
				"the diff of update_file holds the chunks of one file only (@@ lines, then lines starting with a space, - or +)")
		}
		if len(edits) == 0 {
			return callOp{}, sub.errAt(ls, 0, "the update_file diff of "+path+" has no chunk", "write the changed lines: context with a space, removed with -, added with +")
		}
		c := callOp{ops: []step.Op{{Kind: step.OpReplace, Path: path, Edits: edits, Pos: n.Pos}}, files: []File{{"M", path}}}
		if to := strings.TrimSpace(str("move_to")); to != "" {
			c.ops = append(c.ops, step.Op{Kind: step.OpMove, Path: path, To: to, Overwrite: true, Pos: n.Pos})
			c.files[0].Path = to
		}
		return c, nil
	default:
		return fail("unknown apply_patch_call operation type "+quote(kind), "the types are create_file, update_file and delete_file")
	}
}
