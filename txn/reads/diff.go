package reads

import (
	"bytes"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"io/fs"
	"strings"

	"github.com/hexops/gotextdiff"
	"github.com/hexops/gotextdiff/myers"
	"github.com/hexops/gotextdiff/span"
)

// defaultContext is the number of unchanged lines around a change in a diff
// when ContextLines is 0, as in diff -u and git.
const defaultContext = 3

// diff returns the unified diff from the file name to the file op.To, or to
// op.Content when op.HasContent (exactly one of the two), labelled
// "a/<path>" and "b/<path>". Identical texts give "". Lines are compared
// with their newline, so a missing final newline shows as a change
// ("\ No newline at end of file").
//
// ContextLines 0 means the default of 3: step.ReadOptions cannot tell an
// absent option from 0. (If a caller needs a diff without context, that is
// a field to add to step.ReadOptions.)
func diff(fsys fs.FS, name string, op step.Op, o *step.ReadOptions) (string, error) {
	if (op.To != "") == op.HasContent {
		return "", &OptionError{Option: "to", Reason: "give exactly one right-hand side: a path (To) or Content",
			Hint: "fs.diff takes leftPath and exactly one of rightPath, rightContent"}
	}
	left, err := readText(fsys, name)
	if err != nil {
		return "", err
	}
	rightName := name
	var right []byte
	if op.HasContent {
		right = op.Content
		if bytes.IndexByte(right, 0) >= 0 {
			return "", &BinaryError{Path: "the given content", Hint: "compare text only"}
		}
	} else {
		if rightName, err = fsPath(op.To, "to"); err != nil {
			return "", err
		}
		if right, err = readText(fsys, rightName); err != nil {
			return "", err
		}
	}
	ctx := o.ContextLines
	if ctx == 0 {
		ctx = defaultContext
	}
	return Unified("a/"+name, "b/"+rightName, string(left), string(right), ctx), nil
}

func readText(fsys fs.FS, name string) ([]byte, error) {
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, notFound(name, err)
	}
	if info.IsDir() {
		return nil, &OptionError{Option: "path", Value: name, Reason: "is a directory", Hint: "diff compares two files"}
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, notFound(name, err)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, &BinaryError{Path: name, Hint: "diff compares text only; compare sha256 (fs.read includeMeta) instead"}
	}
	return data, nil
}

// maxMyers caps the lines (both sides together) handed to the Myers diff
// after the common head and tail are set aside. gotextdiff's Myers keeps a
// copy of its frontier per edit step, so its memory grows with the square
// of the changed region: 1,500 lines cost at most ~36 MB. A larger changed
// region is shown as one hunk that replaces it whole.
const maxMyers = 1500

// lineEdit replaces the lines [start, end) of the left text with lines.
type lineEdit struct {
	start, end int
	lines      []string
}

// Unified returns the unified diff of two texts with ctx lines of context
// ("" when they are equal). The edits come from gotextdiff's Myers diff;
// the hunks are built here because gotextdiff fixes the context at three
// lines and writes a hunk that adds to an empty file as "-0" where patch
// and git expect "-0,0".
func Unified(fromName, toName, from, to string, ctx int) string {
	if from == to {
		return ""
	}
	a, b := splitText(from), splitText(to)
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	var edits []lineEdit
	if len(ma)+len(mb) > maxMyers {
		edits = []lineEdit{{start: head, end: head + len(ma), lines: mb}}
	} else {
		for _, e := range myers.ComputeEdits(span.URIFromPath(fromName), strings.Join(ma, ""), strings.Join(mb, "")) {
			edits = append(edits, lineEdit{
				start: head + e.Span.Start().Line() - 1,
				end:   head + e.Span.End().Line() - 1,
				lines: splitText(e.NewText),
			})
		}
	}
	return format(fromName, toName, a, edits, ctx)
}

func splitText(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// format groups edits into hunks with ctx lines of context (edits closer
// than 2*ctx lines share a hunk, as in diff -u) and writes them.
func format(fromName, toName string, lines []string, edits []lineEdit, ctx int) string {
	type hunk struct {
		fromLine, toLine int // 1-based starts
		lines            []gotextdiff.Line
	}
	var hunks []*hunk
	var h *hunk
	last, toLine := 0, 0 // next unconsumed left line; right lines so far
	equal := func(start, end int) int {
		n := 0
		for i := max(start, 0); i < end && i < len(lines); i++ {
			h.lines = append(h.lines, gotextdiff.Line{Kind: gotextdiff.Equal, Content: lines[i]})
			n++
		}
		return n
	}
	for _, e := range edits {
		if h != nil && e.start <= last+2*ctx {
			toLine += equal(last, e.start)
		} else {
			if h != nil {
				equal(last, last+ctx)
				hunks = append(hunks, h)
			}
			toLine += e.start - last
			h = &hunk{fromLine: e.start + 1, toLine: toLine + 1}
			n := equal(e.start-ctx, e.start)
			h.fromLine -= n
			h.toLine -= n
		}
		for i := e.start; i < e.end; i++ {
			h.lines = append(h.lines, gotextdiff.Line{Kind: gotextdiff.Delete, Content: lines[i]})
		}
		last = e.end
		for _, l := range e.lines {
			h.lines = append(h.lines, gotextdiff.Line{Kind: gotextdiff.Insert, Content: l})
			toLine++
		}
	}
	if h == nil {
		return ""
	}
	equal(last, last+ctx)
	hunks = append(hunks, h)

	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", fromName, toName)
	for _, h := range hunks {
		nf, nt := 0, 0
		for _, l := range h.lines {
			if l.Kind != gotextdiff.Insert {
				nf++
			}
			if l.Kind != gotextdiff.Delete {
				nt++
			}
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(h.fromLine, nf), hunkRange(h.toLine, nt))
		for _, l := range h.lines {
			switch l.Kind {
			case gotextdiff.Delete:
				b.WriteByte('-')
			case gotextdiff.Insert:
				b.WriteByte('+')
			default:
				b.WriteByte(' ')
			}
			b.WriteString(l.Content)
			if !strings.HasSuffix(l.Content, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	return b.String()
}

// hunkRange writes a hunk header range as diff -u does: "l" for one line,
// "l,n" otherwise, and for no lines the line before the hunk ("0,0" at the
// start of a file).
func hunkRange(line, n int) string {
	switch n {
	case 1:
		return fmt.Sprint(line)
	case 0:
		return fmt.Sprintf("%d,0", line-1)
	}
	return fmt.Sprintf("%d,%d", line, n)
}
