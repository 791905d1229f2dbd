// Package unidiff writes unified diffs and git patches: the one diff writer
// of the tree (--dry-run, fs.diff and the matcher's hints all use it).
//
// Start with Unified (two texts, "---"/"+++" and hunks) and File (one file's
// patch with git's "diff --git" header, for callers that write a whole
// patch). The line edits come from github.com/hexops/gotextdiff's Myers
// diff; that module is archived upstream, so this package is its only
// importer (a test holds it) and replacing it touches one file. The hunks
// are written here, in the form git apply and patch accept: "-0,0"/"+0,0"
// for an empty side, "\ No newline at end of file", and any context width.
package unidiff

import (
	"fmt"
	"strings"

	"github.com/hexops/gotextdiff/myers"
	"github.com/hexops/gotextdiff/span"
)

// DefaultContext is the number of unchanged lines around a change, as in
// diff -u and git.
const DefaultContext = 3

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

// Unified returns the unified diff of two texts with ctx lines of context,
// headed "--- fromName" and "+++ toName" ("" when the texts are equal).
// Lines are compared with their newline, so a missing final newline shows
// as a change marked "\ No newline at end of file".
func Unified(fromName, toName, from, to string, ctx int) string {
	h := Hunks(from, to, ctx)
	if h == "" {
		return ""
	}
	return "--- " + fromName + "\n+++ " + toName + "\n" + h
}

// Hunks returns the "@@" hunks of the unified diff of two texts with ctx
// lines of context, without the file header ("" when the texts are equal).
func Hunks(from, to string, ctx int) string {
	if from == to {
		return ""
	}
	if ctx < 0 {
		ctx = 0
	}
	a, b := splitLines(from), splitLines(to)
	// The common head and tail are set aside before Myers: they cost it
	// memory and time, and most edits change a few lines of a long file.
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
		for _, e := range myers.ComputeEdits(span.URIFromPath("a"), strings.Join(ma, ""), strings.Join(mb, "")) {
			edits = append(edits, lineEdit{
				start: head + e.Span.Start().Line() - 1,
				end:   head + e.Span.End().Line() - 1,
				lines: splitLines(e.NewText),
			})
		}
	}
	return format(a, edits, ctx)
}

// splitLines cuts a text after each newline; a last line without one is
// kept as it is.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// line is one line of a hunk: its prefix (' ', '-' or '+') and its text.
type line struct {
	kind byte
	text string
}

// format groups edits into hunks with ctx lines of context (edits closer
// than 2*ctx lines share a hunk, as in diff -u) and writes them.
func format(lines []string, edits []lineEdit, ctx int) string {
	type hunk struct {
		fromLine, toLine int // 1-based starts
		lines            []line
	}
	var hunks []*hunk
	var h *hunk
	last, toLine := 0, 0 // next unconsumed left line; right lines so far
	equal := func(start, end int) int {
		n := 0
		for i := max(start, 0); i < end && i < len(lines); i++ {
			h.lines = append(h.lines, line{' ', lines[i]})
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
			h.lines = append(h.lines, line{'-', lines[i]})
		}
		last = e.end
		for _, l := range e.lines {
			h.lines = append(h.lines, line{'+', l})
			toLine++
		}
	}
	if h == nil {
		return ""
	}
	equal(last, last+ctx)
	hunks = append(hunks, h)

	var b strings.Builder
	for _, h := range hunks {
		nf, nt := 0, 0
		for _, l := range h.lines {
			if l.kind != '+' {
				nf++
			}
			if l.kind != '-' {
				nt++
			}
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(h.fromLine, nf), hunkRange(h.toLine, nt))
		for _, l := range h.lines {
			b.WriteByte(l.kind)
			b.WriteString(l.text)
			if !strings.HasSuffix(l.text, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	return b.String()
}

// hunkRange writes a hunk header range as diff -u does: "l" for one line,
// "l,n" otherwise, and for no lines the line before the hunk ("0,0" at the
// start of a file), which is what git apply and patch expect.
func hunkRange(line, n int) string {
	switch n {
	case 1:
		return fmt.Sprint(line)
	case 0:
		return fmt.Sprintf("%d,0", line-1)
	}
	return fmt.Sprintf("%d,%d", line, n)
}
