// Package protocol finds the instruction blocks of every dialect in a model's
// response and reads them into steps, in document order.
//
// Start with Parse, and Read (text.go) for how the text is taken. Each dialect lives in a subpackage with the same contract
// (Parse(text) []step.Item): axon (Axon plans), acjson (autocoder JSON) and mcp
// (FlyCode MCP requests), and the edit formats models write without our
// prompt (FORMATS.md): applypatch (OpenAI apply_patch) and udiff (unified
// and git diffs); fence and tjson are the scanners they share. This
// package runs every dialect over the whole text and merges their items.
//
// A reader of an edit format returns one item per block, its Start and End
// covering the block (its fence included, so that no other reader reads
// inside it; an error's span ends at its line, so that what follows stays
// readable), with step.Step.Dialect set and the Source its Feedback needs.
// A change is placed by the matcher: step.Edit's Anchors, Follows and AtEnd
// say where it goes besides its old text (matcher/place.go), and a delete
// with HasContent must find the file holding Content. Text that starts like
// the format but cannot be read is a step.ParseError with its line, never
// prose.
package protocol

import (
	"fmt"
	"github.com/autocoder/autocoder/step"
	"sort"

	"github.com/autocoder/autocoder/protocol/acjson"
	"github.com/autocoder/autocoder/protocol/applypatch"
	"github.com/autocoder/autocoder/protocol/axon"
	"github.com/autocoder/autocoder/protocol/editorjson"
	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/protocol/mcp"
	"github.com/autocoder/autocoder/protocol/searchreplace"
	"github.com/autocoder/autocoder/protocol/udiff"
	"github.com/autocoder/autocoder/protocol/wholefile"
)

// reader is one dialect's reader, under the dialect's name (step.Step.Dialect).
type reader struct {
	name  string
	parse func(*fence.Text) []step.Item
}

// bytesOnly runs a reader that needs neither the fences nor the line index
// of the pre-scan.
func bytesOnly(parse func([]byte) []step.Item) func(*fence.Text) []step.Item {
	return func(t *fence.Text) []step.Item { return parse(t.Bytes) }
}

// dialects are the readers Parse runs, in order of precedence: when two
// dialects claim a block at the same offset, the earlier one's is kept.
//
// The seed dialects come first; then the edit formats models write without
// our prompt (FORMATS.md), each a subpackage with the same contract: Dialect,
// ParseText(*fence.Text) []step.Item (or Parse(text []byte) for a reader
// that needs no fence), and Feedback([]step.Result) []byte registered in
// writers (feedback.go). The text is scanned once (fence.NewText) for all
// of them: its fences and line starts.
var dialects = []reader{
	{axon.Dialect, axon.ParseText},
	{acjson.Dialect, bytesOnly(acjson.Parse)},
	{mcp.Dialect, bytesOnly(mcp.Parse)},
	{applypatch.Dialect, applypatch.ParseText},
	{searchreplace.Dialect, searchreplace.ParseText},
	{editorjson.Dialect, bytesOnly(editorjson.Parse)},
	// A unified diff is read after SEARCH/REPLACE, so that a fence holding
	// a SEARCH block is never read as a diff; a whole file last, as the
	// loosest: a fence under a path line.
	{udiff.Dialect, udiff.ParseText},
	{wholefile.Dialect, wholefile.ParseText},
}

// Parse finds every block of every dialect in text and returns their items
// in document order.
//
// Each dialect reads the whole text on its own, so one dialect's block may
// quote another's markers as content (a file written by an Axon act that
// documents MCP requests, say). An item that starts inside an earlier kept
// item's span is therefore dropped: a marker inside content is content, not
// an instruction. Step IDs are made unique across the document: a duplicate
// gets a suffix ("-2", "-3", …) and a Repair that says so.
//
// The text is taken as Read takes it (byte-order marks, UTF-16, reasoning
// sections); Read also says how it took it.
func Parse(text []byte) []step.Item {
	items, _ := Read(text)
	return items
}

// parseAll runs every dialect over the text and merges their items.
func parseAll(t *fence.Text) []step.Item {
	text := t.Bytes
	var all []step.Item
	for _, d := range dialects {
		all = append(all, d.parse(t)...)
	}
	// Stable: at equal offsets, dialect order and each dialect's own order
	// stand.
	sort.SliceStable(all, func(i, j int) bool { return all[i].Start < all[j].Start })

	items := all[:0]
	end := 0 // end of the kept spans so far
	for _, it := range all {
		if it.Start < end {
			continue
		}
		if it.Step != nil && it.Start < it.End && it.End <= len(text) {
			it.Step.Raw = string(text[it.Start:it.End])
		}
		items = append(items, it)
		end = max(end, it.End)
	}
	uniqueIDs(items)
	return items
}

// uniqueIDs renames steps whose ID an earlier step already has. Dialects
// number their own default IDs, and a model may give two steps the same
// step_id; the journal, the commit trailer and undo need one step per ID.
func uniqueIDs(items []step.Item) {
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		s := it.Step
		if s == nil {
			continue
		}
		if seen[s.ID] {
			id := s.ID
			for n := 2; seen[id]; n++ {
				id = fmt.Sprintf("%s-%d", s.ID, n)
			}
			s.Repairs = append(s.Repairs, step.Repair{Pos: s.Pos,
				What: fmt.Sprintf("step id %q is taken by an earlier step: renamed %q", s.ID, id)})
			s.ID = id
		}
		seen[s.ID] = true
	}
}
