package applypatch

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/step"
)

// body reads the operations of one patch (the lines between its Begin and
// End markers) into ops, with the summary of the files for the feedback.
func (r *reader) body(ls []fence.Line) (ops []step.Op, files []File, repairs []step.Repair, err *step.ParseError) {
	for i := 0; i < len(ls); {
		t := strings.TrimSpace(ls[i].S)
		pos := r.pos(ls[i].Off)
		switch {
		case t == "":
			i++ // blank lines between operations
		case strings.HasPrefix(t, addFile):
			path := strings.TrimSpace(t[len(addFile):])
			if path == "" {
				return nil, nil, nil, r.errAt(ls, i, "*** Add File: names no file", "write the path after *** Add File: ")
			}
			i++
			var content strings.Builder
			for i < len(ls) && strings.HasPrefix(ls[i].S, "+") {
				content.WriteString(ls[i].S[1:])
				content.WriteByte('\n')
				i++
			}
			if i < len(ls) && !isMarker(ls[i].S) {
				return nil, nil, nil, r.errAt(ls, i, "a line of *** Add File: "+path+" does not start with +",
					"start every line of a new file with + (an empty line is a lone +)")
			}
			ops = append(ops, step.Op{Kind: step.OpWrite, Path: path, Content: []byte(content.String()), HasContent: true, Pos: pos})
			files = append(files, File{"A", path})
		case strings.HasPrefix(t, deleteFile):
			path := strings.TrimSpace(t[len(deleteFile):])
			if path == "" {
				return nil, nil, nil, r.errAt(ls, i, "*** Delete File: names no file", "write the path after *** Delete File: ")
			}
			ops = append(ops, step.Op{Kind: step.OpDelete, Path: path, Pos: pos})
			files = append(files, File{"D", path})
			i++
		case strings.HasPrefix(t, updateFile):
			path := strings.TrimSpace(t[len(updateFile):])
			if path == "" {
				return nil, nil, nil, r.errAt(ls, i, "*** Update File: names no file", "write the path after *** Update File: ")
			}
			i++
			to := ""
			if i < len(ls) && strings.HasPrefix(strings.TrimSpace(ls[i].S), moveTo) {
				to = strings.TrimSpace(strings.TrimSpace(ls[i].S)[len(moveTo):])
				i++
			}
			edits, next, reps, err := r.chunks(ls, i, path)
			if err != nil {
				return nil, nil, nil, err
			}
			repairs = append(repairs, reps...)
			if len(edits) == 0 {
				return nil, nil, nil, r.errAt(ls, i, "*** Update File: "+path+" has no chunk",
					"after *** Update File: write the changed lines: context lines starting with a space, removed lines with -, added lines with +")
			}
			i = next
			ops = append(ops, step.Op{Kind: step.OpReplace, Path: path, Edits: edits, Pos: pos})
			shown := path
			if to != "" {
				ops = append(ops, step.Op{Kind: step.OpMove, Path: path, To: to, Overwrite: true, Pos: pos})
				shown = to
			}
			files = append(files, File{"M", shown})
		case opHeader().MatchString(t):
			return nil, nil, nil, r.errAt(ls, i, "unknown apply_patch operation "+quote(t),
				"the operations are *** Add File: PATH, *** Update File: PATH (optionally followed by *** Move to: PATH) and *** Delete File: PATH")
		default:
			return nil, nil, nil, r.errAt(ls, i, "a line that is no apply_patch operation",
				"start each operation with *** Add File: PATH, *** Update File: PATH or *** Delete File: PATH, and end the patch with *** End Patch")
		}
	}
	return ops, files, repairs, nil
}

// opHeader is a line shaped like an operation header, known or not
// ("*** Frobnicate File: x").
var opHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\*\*\* \w+ \w+:`) })

// isMarker reports whether a line is one of the envelope's marker lines.
func isMarker(s string) bool {
	if !mayMark(s) {
		return false
	}
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "*** ") {
		return false // most lines: no regular expression run
	}
	return t == endPatch || t == endOfFile || t == beginPatch || strings.HasPrefix(t, moveTo) || opHeader().MatchString(t)
}

// udiffHeader is a unified diff's hunk header, which models write in V4A
// patches: its numbers are not read, a section heading after it is the
// anchor.
var udiffHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$`) })

// chunk is one chunk of an Update being read.
type chunk struct {
	anchors []string
	// old and new are the lines (indexes in the Update's lines) of the
	// old and the new text: indexes, not strings, so that a 10 MB patch's
	// lines are no garbage for the collector to scan.
	old, new []int
	changes  bool // a line was read (context, - or +)
	// tail says of each line read whether it was an empty line (an empty
	// context line, or a blank line between chunks).
	tail  []bool
	atEnd bool
	pos   step.Pos
}

// chunks reads the chunks of one Update starting at line i, up to the next
// operation or the end of the patch, into edits.
func (r *reader) chunks(ls []fence.Line, i int, path string) (edits []step.Edit, next int, repairs []step.Repair, err *step.ParseError) {
	var c *chunk
	// The buffers of the chunk being read, reused by the next: joinLines
	// copies the text out.
	var oldBuf, newBuf []int
	var tailBuf []bool
	newChunk := func(pos step.Pos) *chunk {
		return &chunk{pos: pos, old: oldBuf[:0], new: newBuf[:0], tail: tailBuf[:0]}
	}
	flush := func() {
		if c == nil || !c.changes {
			return
		}
		// Empty lines at a chunk's end stand between chunks (Codex skips
		// them): they are no context the file must have.
		n := len(c.tail)
		for n > 0 && c.tail[n-1] {
			n--
		}
		if n > 0 {
			drop := len(c.tail) - n
			c.old, c.new = c.old[:len(c.old)-drop], c.new[:len(c.new)-drop]
		}
		e := step.Edit{Old: joinLines(ls, c.old), New: joinLines(ls, c.new), Anchors: c.anchors, Follows: true, Pos: c.pos}
		e.AtEnd = c.atEnd || len(c.old) == 0
		edits = append(edits, e)
		oldBuf, newBuf, tailBuf = c.old, c.new, c.tail
		c = nil
	}
	for ; i < len(ls); i++ {
		s := ls[i].S
		switch {
		case mayMark(s) && strings.TrimSpace(s) == endOfFile:
			if c == nil || !c.changes {
				return nil, 0, nil, r.errAt(ls, i, "*** End of File closes no chunk", "put *** End of File right after the last line of a chunk")
			}
			c.atEnd = true
			flush()
		case isMarker(s) && !strings.HasPrefix(s, " ") && !strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "+"):
			flush()
			return edits, i, repairs, nil
		case strings.HasPrefix(s, "@@"):
			if c != nil && c.changes {
				flush()
			}
			if c == nil {
				c = newChunk(r.pos(ls[i].Off))
			}
			a := strings.TrimSpace(s[2:])
			if m := udiffHeader().FindStringSubmatch(s); m != nil {
				a = strings.TrimSpace(m[1])
				repairs = append(repairs, step.Repair{Pos: r.pos(ls[i].Off),
					What: fmt.Sprintf("read the unified-diff hunk header %q as @@ %s: line numbers are not read", quote(s), a)})
			}
			if a != "" {
				c.anchors = append(c.anchors, a)
			}
		case s == "" || s[0] == ' ' || s[0] == '-' || s[0] == '+':
			if c == nil {
				if len(edits) > 0 {
					// A later chunk needs its @@ line; an empty line here
					// stands between chunks.
					if s == "" {
						continue
					}
					return nil, 0, nil, r.errAt(ls, i, "a chunk of "+path+" without its @@ line",
						"start every chunk after the first with a line @@ (or @@ followed by a whole line of the file that comes before the change)")
				}
				c = newChunk(r.pos(ls[i].Off))
			}
			c.changes = true
			switch {
			case s == "" || s[0] == ' ':
				c.old, c.new = append(c.old, i), append(c.new, i)
				c.tail = append(c.tail, s == "")
			case s[0] == '-':
				c.old = append(c.old, i)
				c.tail = append(c.tail, false)
			default:
				c.new = append(c.new, i)
				c.tail = append(c.tail, false)
			}
		default:
			return nil, 0, nil, r.errAt(ls, i, "unexpected line in the chunk of "+path,
				"start every line of a chunk with a space (context), - (removed) or + (added); end the patch with *** End Patch")
		}
	}
	if c != nil && !c.changes {
		return nil, 0, nil, r.errAt(ls, len(ls), "@@ with no lines after it in "+path, "follow each @@ line with the chunk's lines")
	}
	flush()
	return edits, i, repairs, nil
}

// joinLines is the bodies of the lines ls[k] for k in idx (each without
// its first character, the line's " ", "-" or "+"; an empty line is an
// empty body), each ended by "\n"; "" for none. One allocation: a chunk's
// lines are most of a large patch.
func joinLines(ls []fence.Line, idx []int) string {
	n := 0
	for _, k := range idx {
		n += max(len(ls[k].S), 1)
	}
	var b strings.Builder
	b.Grow(n)
	for _, k := range idx {
		if s := ls[k].S; s != "" {
			b.WriteString(s[1:])
		}
		b.WriteByte('\n')
	}
	return b.String()
}
