// Package parsed is the one JSON view of parsed items (a step, or the error
// of a block that could not be read): parse --format json writes it
// (report.ParseJSON, its schema in report/schema/parse.schema.json), and
// the readers' golden files hold it (internal/golden.Items), so that what a
// test pins is what a script reads.
//
// Content is text, as the response wrote it: a JSON string, not
// encoding/json's base64 of a []byte. Only content that is not text (not
// UTF-8, or binary by textkind.Binary) is base64, and says so beside it
// ("encoding": "base64"), so that a script decodes exactly those bytes.
package parsed

import (
	"encoding/base64"
	"unicode/utf8"

	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textkind"
)

// The view's types: the shallower fields hide the embedded ones of the
// same name.
type (
	// Item is one item: a step, or the error of a block that could not be
	// read.
	Item struct {
		Step  *Step            `json:"step,omitempty" jsonschema:"the step the block holds"`
		Err   *step.ParseError `json:"error,omitempty" jsonschema:"why the block could not be read"`
		Start int              `json:"start" jsonschema:"the byte offset of the block in the response"`
		End   int              `json:"end" jsonschema:"the byte offset just after the block"`
	}
	// Step is a step with its ops as Op views.
	Step struct {
		*step.Step
		Ops []Op `json:"ops,omitempty"`
	}
	// Op is an op with its content and edits as text.
	Op struct {
		step.Op
		Content *string `json:"content,omitempty" jsonschema:"the content, as text; base64 when encoding says so"`
		// Encoding is "base64" when Content is binary, and absent when it
		// is text.
		Encoding string `json:"encoding,omitempty" jsonschema:"base64 when content is binary (not UTF-8, or a NUL byte); absent for text"`
		Edits    []Edit `json:"edits,omitempty"`
	}
	// Edit is an edit whose old and new texts are text, or both base64.
	Edit struct {
		step.Edit
		Old string `json:"old"`
		New string `json:"new"`
		// Encoding is "base64" when Old or New is binary: both are then
		// base64.
		Encoding string `json:"encoding,omitempty" jsonschema:"base64 when old or new is binary: both are then base64"`
	}
)

// Items is the view of items, in their order (never nil: no item is []).
func Items(items []step.Item) []Item {
	views := []Item{}
	for _, it := range items {
		v := Item{Start: it.Start, End: it.End, Err: it.Err}
		if it.Step != nil {
			v.Step = &Step{Step: it.Step}
			for _, op := range it.Step.Ops {
				v.Step.Ops = append(v.Step.Ops, opView(op))
			}
		}
		views = append(views, v)
	}
	return views
}

func opView(op step.Op) Op {
	v := Op{Op: op}
	if op.Content != nil || op.HasContent {
		c := string(op.Content)
		if isBinary(op.Content) {
			c, v.Encoding = base64.StdEncoding.EncodeToString(op.Content), "base64"
		}
		v.Content = &c
	}
	for _, e := range op.Edits {
		ev := Edit{Edit: e, Old: e.Old, New: e.New}
		if isBinary([]byte(e.Old)) || isBinary([]byte(e.New)) {
			ev.Old = base64.StdEncoding.EncodeToString([]byte(e.Old))
			ev.New = base64.StdEncoding.EncodeToString([]byte(e.New))
			ev.Encoding = "base64"
		}
		v.Edits = append(v.Edits, ev)
	}
	return v
}

// isBinary reports content that a JSON string cannot carry as it is: bytes
// that are not UTF-8 (encoding/json would replace them) or binary content
// (textkind.Binary: a NUL byte anywhere).
func isBinary(b []byte) bool {
	return !utf8.Valid(b) || textkind.Binary(b, 0) >= 0
}
