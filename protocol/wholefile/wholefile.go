// Package wholefile reads whole files as models write them without
// autocoder's prompt (FORMATS.md 5.1, aider's "whole" edit format): a fenced
// block with an explicit path marker, either the line right above its
// opening fence (src/app.py, ### src/app.py, **src/app.py**:) or the info
// string (```src/app.py, ```python:src/app.py, ```python path=src/app.py).
//
// Start reading at ParseText. A fence without a path marker is an example, never
// a write: Unnamed lists those, and protocol.Read tells them to the user
// (parse prints "skipped"). A fence whose content another format reads (a
// SEARCH/REPLACE block, a diff, an apply_patch envelope, a tool call, a
// seed dialect's block) is never a whole file (FORMATS.md 6). One fence is
// one step: a write of the file's whole content (a new file and its
// folders, or an existing file replaced, keeping its line endings and its
// mode); the engine refuses a content with an elision ("... rest of the
// code ...") over an existing file.
package wholefile

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/step"
)

// Dialect is this format's name in step.Step.Dialect.
const Dialect = "whole-file"

// Source is the reader's record of a block, for the feedback.
type Source struct {
	Path string
	// Marker says where the path was: "line" (above the fence) or "info".
	Marker string
}

// ParseText returns a step for every closed fence with a path marker whose
// content no other format reads, in document order. The item starts at the
// path line (or the fence) and ends after the closing fence.
func ParseText(t *fence.Text) []step.Item {
	text := t.Bytes
	var items []step.Item
	idx := t.Lines
	for _, b := range t.Blocks {
		path, start, marker := named(text, b)
		if path == "" || !b.Closed || claimed(b) {
			continue
		}
		at := idx.Pos(start)
		st := &step.Step{Dialect: Dialect, Pos: at, Source: Source{Path: path, Marker: marker},
			Ops: []step.Op{{Kind: step.OpWrite, Path: path, Content: b.Content, HasContent: true, Pos: idx.Pos(b.Start)}}}
		items = append(items, step.Item{Step: st, Start: start, End: b.End})
	}
	for i, it := range items {
		it.Step.ID = Dialect + "-" + strconv.Itoa(i+1)
	}
	return items
}

// Unnamed is a fence ParseText did not take as a file: it has no path marker.
type Unnamed struct {
	Start, End int // the fence's offsets
	Line       int // the opening fence's line
	Info       string
	Fence      string // the opening fence's run (``` or ~~~~)
}

// Examples returns the closed fences of text that have no path marker and
// that no other format reads: examples, not writes. protocol.Read reports
// those outside every block, so that a user sees why nothing was written.
func Examples(t *fence.Text) []Unnamed {
	var out []Unnamed
	for _, b := range t.Blocks {
		if path, _, _ := named(t.Bytes, b); path != "" || !b.Closed || claimed(b) {
			continue
		}
		out = append(out, Unnamed{Start: b.Start, End: b.End, Line: b.Line, Info: b.Info, Fence: strings.Repeat(string(b.Char), b.Len)})
	}
	return out
}

// attr is a path given as an attribute of the info string.
var attr = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|\s)(?:path|file|filename|title)=["']?([^"'\s]+)`)
})

// named returns the path marker of b, where its block starts, and where the
// marker was; "" when there is none.
func named(text []byte, b fence.Block) (path string, start int, marker string) {
	info := b.Info
	if m := attr().FindStringSubmatch(info); m != nil {
		if p := fence.PathLine([]byte(m[1])); p != "" {
			return p, b.Start, "info"
		}
	}
	if first, _, _ := strings.Cut(info, " "); first != "" {
		if _, after, ok := strings.Cut(first, ":"); ok {
			first = after // ```python:src/app.py
		}
		if p := fence.PathLine([]byte(first)); p != "" && strings.ContainsAny(first, "./") {
			return p, b.Start, "info"
		}
	}
	// The line right above the opening fence.
	if b.Start == 0 {
		return "", 0, ""
	}
	ls := bytes.LastIndexByte(text[:b.Start-1], '\n') + 1
	l := bytes.TrimRight(text[ls:b.Start-1], "\r")
	if _, ok := fence.Open(l); ok {
		return "", 0, "" // a fence line: the block is the previous fence's neighbour
	}
	if p := fence.PathLine(l); p != "" {
		return p, ls, "line"
	}
	return "", 0, ""
}

// Markers of content that other formats read (FORMATS.md 6): a fence that
// holds one is never a whole file.
var (
	editorCall = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`"command"\s*:\s*"(?:view|create|str_replace|insert|undo_edit)"`)
	})
	claimedInfo = map[string]bool{"diff": true, "patch": true, "udiff": true, "mcp-request": true, "mcp-response": true, "act": true}
	claimedText = []string{"*** Begin Patch", "diff --git ", "#####--", "~~~~~act", "<replace_in_file>", "<apply_diff>", "<write_to_file>", `"apply_patch_call"`}
)

// claimed reports a fence whose content another format reads. It reads
// the content once, line by line (no regular expression over a whole file:
// a 10 MB answer must read in milliseconds).
func claimed(b fence.Block) bool {
	first, _, _ := strings.Cut(b.Info, " ")
	if claimedInfo[strings.ToLower(first)] || (b.Char == '~' && b.Len >= 5) {
		return true // ~~~~~ blocks and act blocks are Axon's, read or refused by its reader
	}
	c := b.Content
	for _, s := range claimedText {
		if fence.Contains(c, s) {
			return true
		}
	}
	if fence.Contains(c, `"command"`) && editorCall().Match(c) {
		return true
	}
	heads, hunk := false, false
	prevMinus := false
	for len(c) > 0 {
		i := bytes.IndexByte(c, '\n')
		l := c[:i] // Content lines all end in "\n"
		c = c[i+1:]
		if searchLine(l) {
			return true
		}
		if prevMinus && bytes.HasPrefix(l, []byte("+++ ")) {
			heads = true
		}
		prevMinus = bytes.HasPrefix(l, []byte("--- "))
		if bytes.HasPrefix(l, []byte("@@ ")) && bytes.Contains(l[3:], []byte("@@")) {
			hunk = true
		}
		if heads && hunk {
			return true // a unified diff
		}
	}
	return false
}

// searchLine reports a SEARCH or REPLACE marker line of aider's, Cline's
// or Roo's: a fence that holds one is an edit (or a broken one), never a
// file's content.
func searchLine(l []byte) bool {
	if c := fence.Lead(l); c != '<' && c != '-' && c != '>' && c != '+' && c != utf8.RuneSelf {
		return false // most lines, told without trimming them
	}
	t := bytes.TrimSpace(l)
	if len(t) < 10 || bytes.IndexByte([]byte("<->+"), t[0]) < 0 {
		return false
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	rest := string(bytes.TrimSuffix(t[n:], []byte(">")))
	if t[0] == '<' || t[0] == '-' {
		return n >= 3 && rest == " SEARCH"
	}
	return n >= 3 && rest == " REPLACE"
}
