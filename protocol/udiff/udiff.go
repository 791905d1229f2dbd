// Package udiff reads unified diffs and git diffs as models write them
// (FORMATS.md section 3): in a ```diff or ```patch fence, in a plain fence,
// or bare in the text from a "diff --git" line or a "---"/"+++" pair.
//
// One fence (or one bare diff) is one step with all its files. Hunks are
// placed by their content, never by their line numbers (FORMATS.md section
// 0): each hunk's old lines (context and "-") become a step.Edit that the
// matcher must find exactly once. Git's headers are honoured: new and
// deleted files (a deletion quotes what it removes, and the file must hold
// it), renames, mode changes; a binary patch is refused. A header with no
// hunk, or a hunk cut off, is an error with its line.
//
// Start with ParseText; diff.go reads one diff's lines, feedback.go answers as
// git apply does.
package udiff

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textpos"
)

// Dialect is the name of this format (step.Step.Dialect).
const Dialect = "udiff"

// Source is the record of a diff kept for the feedback: its files in order.
type Source struct {
	Files []File
}

// File is one file of a diff: what happens to it.
type File struct {
	Verb string // "patched", "created", "deleted", "renamed", "mode changed"
	Path string // the path after the diff
	From string // a rename's old path
}

// diffInfos are the info strings of a fence that holds a diff.
var diffInfos = map[string]bool{"diff": true, "patch": true, "udiff": true, "git": true}

// ParseText finds every unified diff in the text and reads each into one
// step (or the error that kept it from being read), in document order.
func ParseText(t *fence.Text) []step.Item {
	if !mayHold(t) {
		return nil
	}
	r := &reader{text: t.Bytes, cur: textpos.Start, lines: fence.Lines(t.Bytes, 0)}
	var items []step.Item
	blocks := t.Blocks
	for i := 0; i < len(r.lines); i++ {
		off := r.lines[i].Off
		if b := fence.At(blocks, off); b != nil {
			// Skip the rest of the fence whatever it holds.
			j := i
			for j < len(r.lines) && r.lines[j].Off < b.End {
				j++
			}
			if off == b.Start {
				if it, ok := r.fenced(*b, i, j); ok {
					items = append(items, it)
				}
			}
			i = j - 1
			continue
		}
		if !r.headerAt(r.lines, i) {
			continue
		}
		// A bare diff: from its first header to the end of its last hunk.
		it, end := r.diff(r.lines, i, len(r.lines), false)
		if end > i {
			it.Start = off
			it.End = r.lines[end-1].Off + len(r.lines[end-1].S)
			items = append(items, it)
			i = end - 1
		}
	}
	n := 0
	for _, it := range items {
		if it.Step != nil {
			n++
			it.Step.ID = fmt.Sprintf("diff-%d", n)
		}
	}
	return items
}

// mayHold reports whether the text may hold a diff: every item Parse
// returns starts at a header line ("diff --git " or "--- " at a line's
// start) or is a fence whose info string names a diff. Most texts have
// neither, and are read no further.
func mayHold(t *fence.Text) bool {
	for _, s := range t.Lines.Starts() {
		if l := t.Bytes[s:]; len(l) > 0 && (l[0] == '-' || l[0] == 'd') &&
			(bytes.HasPrefix(l, []byte("--- ")) || bytes.HasPrefix(l, []byte("diff --git "))) {
			return true
		}
	}
	for _, b := range t.Blocks {
		if diffInfos[strings.ToLower(strings.Fields(b.Info + " x")[0])] {
			return true
		}
	}
	return false
}

type reader struct {
	text  []byte
	cur   step.Pos // the last position computed, to move from (textpos.Locate)
	lines []fence.Line
}

// pos is the position of byte offset off; positions are asked for in
// document order almost always, so each costs the distance from the last.
func (r *reader) pos(off int) step.Pos {
	r.cur = textpos.Locate(r.text, textpos.Start, r.cur, min(max(off, 0), len(r.text)))
	return r.cur
}

// fenced reads the fence b whose lines are [i, j) (the opening line first):
// a diff fence, or any fence whose content starts with a diff header.
func (r *reader) fenced(b fence.Block, i, j int) (step.Item, bool) {
	info := strings.ToLower(strings.Fields(b.Info + " x")[0])
	lo, hi := i+1, j
	if b.Closed {
		hi = j - 1
	}
	if hi < lo {
		hi = lo
	}
	first := lo
	for first < hi && strings.TrimSpace(r.lines[first].S) == "" {
		first++
	}
	hasHeader := -1
	for k := lo; k < hi; k++ {
		s := r.lines[k].S
		// Another format's marker starts with * or <, white space
		// trimmed (fence.Lead tells most lines without trimming them).
		if c := fence.Lead(s); c == '*' || c == '<' || c == utf8.RuneSelf {
			t := strings.TrimSpace(s)
			if t == "*** Begin Patch" || strings.HasPrefix(t, "*** Update File:") || strings.HasPrefix(t, "*** Add File:") ||
				strings.HasPrefix(t, "*** Delete File:") || strings.HasPrefix(t, "<<<<<<< SEARCH") || strings.HasPrefix(t, "<<<<<<<") {
				// Another format's block in a diff fence: its reader's.
				return step.Item{}, false
			}
		}
		if hasHeader < 0 && r.headerAt(r.lines[:hi], k) {
			hasHeader = k
		}
	}
	switch {
	case hasHeader >= 0 && (diffInfos[info] || info == "x" || info == "text" || hasHeader == first):
	case diffInfos[info]:
		// A diff fence whose diff cannot be read: an error, never prose.
		e := &step.ParseError{Dialect: Dialect, Pos: r.pos(b.Start),
			Msg: "a ```" + info + " fence without a file header (--- a/PATH then +++ b/PATH, or diff --git) before its hunks",
			Fix: "start each file of the diff with --- a/PATH and +++ b/PATH lines, then its @@ hunks; " + example}
		if first < hi {
			e.Quote = quote(r.lines[first].S)
			e.Pos = r.pos(r.lines[first].Off)
		}
		return step.Item{Err: e, Start: b.Start, End: b.End}, true
	default:
		return step.Item{}, false
	}
	it, _ := r.diff(r.lines, hasHeader, hi, !b.Closed)
	it.Start, it.End = b.Start, b.End
	if it.Step != nil {
		it.Step.Pos = r.pos(b.Start)
	}
	return it, true
}

// example is the smallest correct diff, for hints.
const example = "for example:\n--- a/app.py\n+++ b/app.py\n@@ ... @@\n def f():\n-    return 1\n+    return 2"

// quote is a line of the answer in a message (textpos.Clip).
func quote(s string) string { return textpos.Clip(s, 60) }

// headerAt reports whether a file header starts at line i: "diff --git",
// or a "--- " line directly followed by a "+++ " line.
func (r *reader) headerAt(ls []fence.Line, i int) bool {
	s := ls[i].S
	if strings.HasPrefix(s, "diff --git ") {
		return true
	}
	return strings.HasPrefix(s, "--- ") && i+1 < len(ls) && strings.HasPrefix(ls[i+1].S, "+++ ")
}
