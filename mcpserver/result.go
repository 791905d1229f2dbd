package mcpserver

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/autocoder/autocoder/step"
)

// capped returns text whole when it fits the cap, else its first part (cut
// at a line end where there is one, never inside a character) and a note
// that says how much that is and how to ask for the rest. A message larger
// than the client's buffer would end the connection instead.
func (s *Server) capped(text string, st *step.Step) string {
	max := s.opts.MaxResult
	if len(text) <= max {
		return text
	}
	keep := max - 400 // room for the note
	if keep < 1 {
		keep = max / 2
	}
	for keep > 0 && !utf8.RuneStart(text[keep]) {
		keep--
	}
	if nl := strings.LastIndexByte(text[:keep], '\n'); nl >= keep/2 {
		keep = nl + 1
	}
	head := text[:keep]
	note := fmt.Sprintf("\n[autocoder: the result is %d bytes, more than the %d a result may hold; above are the first %d bytes. ",
		len(text), max, keep)
	var op *step.Op
	if len(st.Ops) == 1 {
		op = &st.Ops[0]
	}
	switch {
	case op != nil && op.Kind == step.OpRead && op.Read != nil && op.Read.Range == "" && op.Read.Line == 0 && op.Read.Lines == "" &&
		!op.Read.IncludeMeta && (op.Read.Encoding == "" || op.Read.Encoding == "utf-8"):
		// The text is the file's from its start: the counts are where
		// the next part begins.
		chars := utf8.RuneCountInString(head)
		lines := strings.Count(head, "\n")
		note += fmt.Sprintf(`Read the rest in parts with fs_read's range ("start:end" in characters, e.g. "%d:%d") or lines ("a-b", e.g. "%d-%d").]`,
			chars, 2*chars, lines+1, 2*lines+1)
	case op != nil && op.Kind == step.OpRead:
		note += `Ask for a smaller part with fs_read's range ("start:end" in characters) or lines ("a-b").]`
	case op != nil && op.Kind == step.OpSearch:
		note += "Narrow the search with path, glob, extensions or a lower limit.]"
	case op != nil && op.Kind == step.OpList:
		note += "List less at once with a smaller depth, a glob, or a deeper path.]"
	case op != nil && op.Kind == step.OpDiff:
		note += "Diff smaller files, or fewer contextLines.]"
	default:
		note += "Ask for less at once.]"
	}
	return head + note
}
