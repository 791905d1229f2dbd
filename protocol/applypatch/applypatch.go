// Package applypatch reads OpenAI's apply_patch format (V4A, FORMATS.md
// section 1): the "*** Begin Patch" … "*** End Patch" envelope with its Add,
// Update (and "*** Move to:") and Delete File operations, bare in the text,
// in a fence, or in an `apply_patch <<'EOF'` heredoc; a fence holding the
// operations without the envelope; and the tool-call forms written as JSON
// (an object whose "input" holds a patch, and "apply_patch_call" items with
// their "operation").
//
// One envelope (or one run of apply_patch_call items) is one step, all its
// files or none. Each Update chunk becomes a step.Edit placed by the matcher
// with the chunk's "@@" anchors, after the previous chunk (Follows), and at
// the end of the file when it says "*** End of File" or only adds lines.
//
// Start with ParseText; body.go reads the operations, calls.go the JSON forms,
// feedback.go answers as the apply_patch tool does.
package applypatch

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textpos"
)

// Dialect is the name of this format (step.Step.Dialect).
const Dialect = "apply_patch"

// The envelope's marker lines, compared with white space trimmed.
const (
	beginPatch = "*** Begin Patch"
	endPatch   = "*** End Patch"
	addFile    = "*** Add File: "
	updateFile = "*** Update File: "
	deleteFile = "*** Delete File: "
	moveTo     = "*** Move to: "
	endOfFile  = "*** End of File"
)

// Source is the record of a patch kept for the feedback: each file it
// touches with Codex's letter for it (A added, M modified or moved, D
// deleted), in patch order.
type Source struct {
	Files []File
}

// File is one file of a patch's summary.
type File struct {
	Letter string // "A", "M" or "D"
	Path   string // the path after the operation (a move's destination)
}

// reader holds the response being read.
type reader struct {
	text   []byte
	cur    step.Pos // the last position computed, to move from (textpos.Locate)
	lines  []fence.Line
	blocks []fence.Block // the fenced blocks of text
	// at, when set, gives every position of a patch read from a JSON
	// string: the string's lines have no offsets in the response.
	at *step.Pos
}

func (r *reader) pos(off int) step.Pos {
	if r.at != nil {
		return *r.at
	}
	r.cur = textpos.Locate(r.text, textpos.Start, r.cur, min(max(off, 0), len(r.text)))
	return r.cur
}

// errAt is a parse error at line i of ls (len(ls): just after the last).
func (r *reader) errAt(ls []fence.Line, i int, msg, fix string) *step.ParseError {
	e := &step.ParseError{Dialect: Dialect, Msg: msg, Fix: fix}
	switch {
	case i < len(ls):
		e.Pos, e.Quote = r.pos(ls[i].Off), quote(ls[i].S)
		if r.at != nil {
			e.Msg = fmt.Sprintf("%s (line %d of the patch)", msg, i+1)
		}
	case len(ls) > 0:
		e.Pos = r.pos(ls[len(ls)-1].Off)
		if r.at != nil {
			e.Msg = fmt.Sprintf("%s (after line %d of the patch)", msg, len(ls))
		}
	default:
		e.Pos = r.pos(len(r.text))
	}
	return e
}

// quote is a line of the answer in a message (textpos.Clip).
func quote(s string) string { return textpos.Clip(s, 60) }

// ParseText finds every apply_patch block in the text and reads each into
// one step (or the error that kept it from being read), in document order.
func ParseText(t *fence.Text) []step.Item {
	// Every envelope marker and operation header holds "*** ", and every
	// tool call a begin marker or "apply_patch_call": a text with neither
	// is read no further.
	if !fence.Contains(t.Bytes, "*** ") && !fence.Contains(t.Bytes, string(callKeys[0])) {
		return nil
	}
	r := &reader{text: t.Bytes, cur: textpos.Start, lines: fence.Lines(t.Bytes, 0), blocks: t.Blocks}
	items := r.envelopes()
	items = append(items, r.calls(items)...)
	sort.SliceStable(items, func(i, j int) bool { return items[i].Start < items[j].Start })
	n := 0
	for _, it := range items {
		if it.Step != nil {
			n++
			it.Step.ID = fmt.Sprintf("patch-%d", n)
		}
	}
	return items
}

// envelopes reads every "*** Begin Patch" line of the text, and every fence
// whose first line is an operation header (the operations without the
// envelope).
func (r *reader) envelopes() []step.Item {
	blocks := r.blocks
	var items []step.Item
	covered := 0 // the end of the last item: items never overlap
	for i := 0; i < len(r.lines); i++ {
		if len(items) > 0 {
			covered = items[len(items)-1].End
		}
		if r.lines[i].Off < covered {
			continue
		}
		if !mayMark(r.lines[i].S) {
			continue // no marker: the cases below all need one
		}
		t := strings.TrimSpace(r.lines[i].S)
		b := fence.Enclosing(blocks, r.lines[i].Off)
		switch {
		case t == beginPatch:
		case b != nil && r.lines[i].Off == b.ContentStart && isHeader(t) && b.Start >= covered:
			// A fence whose content is operations without the envelope:
			// the fence tells where the patch ends.
			end := i
			for end < len(r.lines) && r.lines[end].Off < b.ContentEnd {
				end++
			}
			it := r.item(r.lines[i:end], false, b.Start, b.End)
			if it.Step != nil {
				it.Step.Repairs = append(it.Step.Repairs, step.Repair{Pos: r.pos(r.lines[i].Off),
					What: "the fence holds apply_patch operations without *** Begin Patch / *** End Patch: read the fence as one patch"})
			}
			items = append(items, it)
			i = end - 1
			continue
		case isHeader(t) && b == nil && (i == 0 || strings.TrimSpace(r.lines[i-1].S) == ""):
			// An operation header outside any envelope or fence: the
			// start of a patch that lost its envelope. Refused, since
			// nothing says where it ends.
			items = append(items, step.Item{Err: r.errAt(r.lines, i,
				"an apply_patch operation outside *** Begin Patch … *** End Patch",
				"put the operations between a line *** Begin Patch and a line *** End Patch"),
				Start: r.lines[i].Off, End: r.lines[i].Off + len(r.lines[i].S)})
			continue
		default:
			continue
		}
		start := r.lines[i].Off
		var err *step.ParseError
		// The heredoc line above the patch (apply_patch <<'EOF') is the
		// block's start when it stands in the same fence, or in none.
		if prev := i - 1; prev >= 0 && r.lines[prev].Off >= covered && (b == nil || r.lines[prev].Off >= b.ContentStart) &&
			strings.Contains(r.lines[prev].S, "apply_patch") && strings.Contains(r.lines[prev].S, "<<") {
			err = r.heredoc(r.lines[prev])
			start = r.lines[prev].Off
		}
		j := i + 1
		for j < len(r.lines) && (!mayMark(r.lines[j].S) || strings.TrimSpace(r.lines[j].S) != endPatch && strings.TrimSpace(r.lines[j].S) != beginPatch) {
			j++
		}
		var it step.Item
		switch {
		case err != nil:
			it = step.Item{Err: err}
		case j == len(r.lines) || strings.TrimSpace(r.lines[j].S) != endPatch:
			// Read as far as the operations go, so that the error
			// names the line where the patch stops making sense.
			begin := r.pos(r.lines[i].Off).Line
			it = r.item(r.lines[i+1:j], true, 0, 0)
			if it.Err == nil {
				it = step.Item{Err: r.errAt(r.lines, j,
					fmt.Sprintf("*** Begin Patch at line %d has no *** End Patch: the patch was cut off", begin),
					"end the patch with a line *** End Patch after its last operation; nothing of it was applied")}
			} else {
				it.Err.Msg += fmt.Sprintf(", and the patch that begins at line %d has no *** End Patch", begin)
			}
			// The block ends where reading it stopped: what follows may
			// be another dialect's block.
			j = sort.Search(len(r.lines), func(k int) bool { return r.lines[k].Off > it.Err.Pos.Offset }) - 1
			j = max(j, i+1)
		default:
			it = r.item(r.lines[i+1:j], true, 0, 0)
		}
		it.Start = start
		end := len(r.text)
		if j < len(r.lines) {
			end = r.lines[j].Off + len(r.lines[j].S)
			if strings.TrimSpace(r.lines[j].S) == beginPatch {
				end = r.lines[j].Off
			}
		}
		// A patch that is all its fence holds (a heredoc's lines aside)
		// takes the fence: its markers are then no other reader's. Two
		// patches in one fence keep their own spans, or the second would
		// start inside the first and be dropped.
		if b != nil && it.Err == nil && end <= b.ContentEnd && it.Start >= b.ContentStart &&
			onlyBlank(r.text[b.ContentStart:it.Start]) && onlyBlank(heredocEnd().ReplaceAll(r.text[end:b.ContentEnd], nil)) {
			it.Start, end = b.Start, b.End
		}
		it.End = end
		if it.Step != nil {
			it.Step.Pos = r.pos(r.lines[i].Off)
		}
		items = append(items, it)
		if j < len(r.lines) && strings.TrimSpace(r.lines[j].S) == beginPatch {
			j--
		}
		i = j
	}
	return items
}

// heredocEnd is a heredoc's terminator line (EOF, PATCH, …).
var heredocEnd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[A-Z_]+\r?$`) })

// mayMark reports whether line s may be a marker line (or a blank one):
// whether, white space trimmed, it can start with "*" (fence.Lead).
func mayMark(s string) bool {
	c := fence.Lead(s)
	return c == '*' || c == 0 || c == utf8.RuneSelf
}

// onlyBlank reports whether b holds only white space.
func onlyBlank(b []byte) bool { return len(strings.TrimSpace(string(b))) == 0 }

// heredoc refuses a heredoc that runs apply_patch after a cd: the paths
// would be read from another folder than the one the model meant.
func (r *reader) heredoc(prev fence.Line) *step.ParseError {
	s := prev.S
	if !strings.Contains(s, "apply_patch") || !strings.Contains(s, "<<") {
		return nil
	}
	if strings.Contains(s, "cd ") {
		return &step.ParseError{Dialect: Dialect, Pos: r.pos(prev.Off), Quote: quote(s),
			Msg: "apply_patch after a cd: autocoder applies patches from the repository root and does not follow the cd",
			Fix: "write the paths relative to the repository root and drop the cd"}
	}
	return nil
}

// isHeader reports whether a trimmed line opens an operation.
func isHeader(t string) bool {
	return strings.HasPrefix(t, addFile) || strings.HasPrefix(t, updateFile) || strings.HasPrefix(t, deleteFile)
}

// item reads the operations ls (inside the envelope when env) into one step.
func (r *reader) item(ls []fence.Line, env bool, start, end int) step.Item {
	ops, files, repairs, err := r.body(ls)
	if err != nil {
		return step.Item{Err: err, Start: start, End: end}
	}
	if len(ops) == 0 {
		return step.Item{Err: r.errAt(ls, 0, "the patch holds no operation: no files were modified",
			"put *** Add File:, *** Update File: or *** Delete File: operations inside the patch"), Start: start, End: end}
	}
	return step.Item{Step: newStep(ops, files, repairs), Start: start, End: end}
}

// newStep is the step of one patch.
func newStep(ops []step.Op, files []File, repairs []step.Repair) *step.Step {
	var parts []string
	for _, f := range files {
		verb := map[string]string{"A": "add", "M": "update", "D": "delete"}[f.Letter]
		parts = append(parts, verb+" "+f.Path)
	}
	reason := strings.Join(parts, ", ")
	if len(parts) > 4 {
		reason = fmt.Sprintf("patch %d files: %s, …", len(parts), strings.Join(parts[:3], ", "))
	}
	return &step.Step{Dialect: Dialect, Reason: reason, Ops: ops, Repairs: repairs, Source: Source{Files: files}}
}
