package editorjson

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/autocoder/autocoder/internal/golden"
	"github.com/autocoder/autocoder/protocol/tjson"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textpos"
)

// render writes a step back as the tool's input object.
func render(s *step.Step) []byte {
	src := s.Source.(Source)
	op := s.Ops[0]
	in := map[string]any{"command": src.Command, "path": op.Path}
	switch src.Command {
	case "view":
		if src.ViewFrom != 0 || src.ViewTo != 0 {
			in["view_range"] = []int{src.ViewFrom, src.ViewTo}
		}
	case "create":
		in["file_text"] = string(op.Content)
	case "str_replace":
		in["old_str"], in["new_str"] = op.Edits[0].Old, op.Edits[0].New
	case "insert":
		in["insert_line"], in["new_str"] = *op.AfterLine, string(op.Content)
	}
	b, _ := json.Marshal(in)
	return b
}

// FuzzParse checks Parse's properties on any text: no panic, well-formed
// items, every edit's text quoted from its call (as a JSON string's lines
// decoded), and a step written back as the tool's input object reading as
// the same op.
func FuzzParse(f *testing.F) {
	golden.SeedAnswers(f, "../testdata/formats/editorjson")
	f.Fuzz(func(t *testing.T, text []byte) {
		items := Parse(text)
		golden.CheckItems(t, Dialect, text, items)
		for _, it := range items {
			if it.Step == nil {
				continue
			}
			op := it.Step.Ops[0]
			if op.Path == "" {
				t.Fatalf("a call without a path: %+v", op)
			}
			r := render(it.Step)
			back := Parse(r)
			if len(back) != 1 || back[0].Step == nil {
				t.Fatalf("%q written back as %s does not read back: %+v", text[it.Start:it.End], r, back)
			}
			got := back[0].Step.Ops[0]
			same := got.Kind == op.Kind && got.Path == op.Path && bytes.Equal(got.Content, op.Content) && len(got.Edits) == len(op.Edits) &&
				(got.AfterLine == nil) == (op.AfterLine == nil) && (got.AfterLine == nil || *got.AfterLine == *op.AfterLine)
			for i := range got.Edits {
				same = same && got.Edits[i].Old == op.Edits[i].Old && got.Edits[i].New == op.Edits[i].New
			}
			if !same {
				t.Fatalf("%q written back as %s reads as %+v, not %+v", text[it.Start:it.End], r, got, op)
			}
			// Every edit's text is one of the call's JSON strings, decoded.
			strs := map[string]bool{}
			if n, _, _, err2 := tjson.ParseNode(text[:it.End], textpos.Of(text, it.Start), nil); err2 == nil {
				collect(n, strs)
			} else {
				t.Fatalf("the call's own text does not read: %v", err2)
			}
			var texts []string
			for _, e := range op.Edits {
				texts = append(texts, e.Old, e.New)
			}
			if op.HasContent {
				texts = append(texts, string(op.Content))
			}
			for _, s := range append(texts, op.Path) {
				if s != "" && !strs[s] {
					t.Fatalf("%q is not one of the call's strings %v", s, strs)
				}
			}
		}
	})
}

// collect adds every string value under n to strs.
func collect(n *tjson.Node, strs map[string]bool) {
	switch n.Kind {
	case tjson.String:
		strs[n.Text] = true
	case tjson.Array:
		for _, e := range n.Elems {
			collect(e, strs)
		}
	case tjson.Object:
		for _, m := range n.Members {
			collect(m.Value, strs)
		}
	}
}
