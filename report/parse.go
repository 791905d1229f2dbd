package report

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/termsafe"
	"github.com/autocoder/autocoder/textkind"
)

// Count is how many of items are steps and how many unreadable blocks.
func Count(items []step.Item) (steps, errs int) {
	for _, it := range items {
		if it.Step != nil {
			steps++
		} else {
			errs++
		}
	}
	return steps, errs
}

// Items writes what parse prints: each step with its checks, ops, programs
// and the repairs the reader made, each unreadable block with its error and
// hint, with their line numbers.
func Items(w io.Writer, items []step.Item) {
	if len(items) == 0 {
		fmt.Fprintln(w, "no instruction block found")
		return
	}
	// Everything here quotes the response.
	w = termsafe.Writer{W: w}
	for _, it := range items {
		if pe := it.Err; pe != nil {
			fmt.Fprintf(w, "error  %s block at line %d, column %d: %s\n", pe.Dialect, pe.Pos.Line, pe.Pos.Col, pe.Msg)
			if pe.Quote != "" {
				fmt.Fprintf(w, "       near: %q\n", pe.Quote)
			}
			if pe.Fix != "" {
				fmt.Fprintf(w, "       hint: %s\n", pe.Fix)
			}
			continue
		}
		s := it.Step
		fmt.Fprintf(w, "step   %s (%s, line %d)", s.ID, s.Dialect, s.Pos.Line)
		if s.Reason != "" {
			r, _, _ := strings.Cut(strings.TrimSpace(s.Reason), "\n")
			fmt.Fprintf(w, ": %s", r)
		}
		fmt.Fprintln(w)
		if s.Finish {
			fmt.Fprintf(w, "       finish: %s\n", s.Summary)
		}
		for _, ck := range s.Checks {
			fmt.Fprintf(w, "       check %s %s%s (line %d)\n", ck.Kind, strings.Join(ck.Paths, " "), ck.Want, ck.Pos.Line)
		}
		for _, op := range s.Ops {
			fmt.Fprintf(w, "       %s %s", op.Kind, op.Path)
			if op.To != "" {
				fmt.Fprintf(w, " -> %s", op.To)
			}
			if len(op.Content) > 0 {
				fmt.Fprintf(w, " (%d bytes)", len(op.Content))
			}
			if len(op.Edits) > 0 {
				fmt.Fprintf(w, " (%d edit(s))", len(op.Edits))
			}
			fmt.Fprintf(w, " (line %d)\n", op.Pos.Line)
		}
		for _, p := range s.Programs {
			fmt.Fprintf(w, "       run %s", p.Command)
			if len(p.Args) > 0 {
				fmt.Fprintf(w, " %s", strings.Join(p.Args, " "))
			}
			fmt.Fprintf(w, " (line %d)\n", p.Pos.Line)
		}
		for _, r := range s.Repairs {
			fmt.Fprintf(w, "       repaired at line %d, column %d: %s\n", r.Pos.Line, r.Pos.Col, r.What)
		}
	}
}

// ParseJSON writes what parse --format json does: every item (a step, or
// the error of a block that could not be read), how many of each, and how
// the text was read. Content is text, as the response wrote it: a JSON
// string, not encoding/json's base64 of a []byte. Only content that is not
// text (not UTF-8, or holding a NUL byte) is base64, and says so beside it
// ("encoding": "base64"), so that a script decodes exactly those bytes.
func ParseJSON(w io.Writer, items []step.Item, reading protocol.Reading) error {
	steps, errs := Count(items)
	views := []itemJSON{}
	for _, it := range items {
		v := itemJSON{Start: it.Start, End: it.End, Err: it.Err}
		if it.Step != nil {
			v.Step = &stepJSON{Step: it.Step}
			for _, op := range it.Step.Ops {
				v.Step.Ops = append(v.Step.Ops, opView(op))
			}
		}
		views = append(views, v)
	}
	return JSON(w, parseJSON{Errors: errs, Items: views, Reading: reading, Steps: steps})
}

// parseJSON is parse --format json (schema/parse.schema.json).
type parseJSON struct {
	Errors  int              `json:"errors" jsonschema:"how many blocks could not be read"`
	Items   []itemJSON       `json:"items" jsonschema:"the blocks in document order: each a step or the error of a block that could not be read"`
	Reading protocol.Reading `json:"reading" jsonschema:"how the text was read: its encoding and the reasoning sections skipped"`
	Steps   int              `json:"steps" jsonschema:"how many steps were read"`
}

// The JSON views of parse's items: the shallower fields hide the embedded
// ones of the same name.
type (
	itemJSON struct {
		Step  *stepJSON        `json:"step,omitempty" jsonschema:"the step the block holds"`
		Err   *step.ParseError `json:"error,omitempty" jsonschema:"why the block could not be read"`
		Start int              `json:"start" jsonschema:"the byte offset of the block in the response"`
		End   int              `json:"end" jsonschema:"the byte offset just after the block"`
	}
	stepJSON struct {
		*step.Step
		Ops []opJSON `json:"ops,omitempty"`
	}
	opJSON struct {
		step.Op
		Content *string `json:"content,omitempty" jsonschema:"the content, as text; base64 when encoding says so"`
		// Encoding is "base64" when Content is binary, and absent when it
		// is text.
		Encoding string     `json:"encoding,omitempty" jsonschema:"base64 when content is binary (not UTF-8, or a NUL byte); absent for text"`
		Edits    []editJSON `json:"edits,omitempty"`
	}
	editJSON struct {
		step.Edit
		Old string `json:"old"`
		New string `json:"new"`
		// Encoding is "base64" when Old or New is binary: both are then
		// base64.
		Encoding string `json:"encoding,omitempty" jsonschema:"base64 when old or new is binary: both are then base64"`
	}
)

func opView(op step.Op) opJSON {
	v := opJSON{Op: op}
	if op.Content != nil || op.HasContent {
		c := string(op.Content)
		if isBinary(op.Content) {
			c, v.Encoding = base64.StdEncoding.EncodeToString(op.Content), "base64"
		}
		v.Content = &c
	}
	for _, e := range op.Edits {
		ev := editJSON{Edit: e, Old: e.Old, New: e.New}
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
