package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/report/parsed"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/termsafe"
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
// the error of a block that could not be read) in the one view of parsed
// items (report/parsed: content as text, binary content as base64 and
// marked so), how many of each, and how the text was read.
func ParseJSON(w io.Writer, items []step.Item, reading protocol.Reading) error {
	steps, errs := Count(items)
	return JSON(w, parseJSON{Errors: errs, Items: parsed.Items(items), Reading: reading, Steps: steps})
}

// parseJSON is parse --format json (schema/parse.schema.json).
type parseJSON struct {
	Errors  int              `json:"errors" jsonschema:"how many blocks could not be read"`
	Items   []parsed.Item    `json:"items" jsonschema:"the blocks in document order: each a step or the error of a block that could not be read"`
	Reading protocol.Reading `json:"reading" jsonschema:"how the text was read: its encoding and the reasoning sections skipped"`
	Steps   int              `json:"steps" jsonschema:"how many steps were read"`
}
