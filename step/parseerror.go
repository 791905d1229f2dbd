package step

import "fmt"

// ParseError is an instruction block that could not be read unambiguously.
// Nothing of it is applied. The dialect readers return it; the engine reports
// it in the block's place in the run.
type ParseError struct {
	Dialect string `json:"dialect" jsonschema:"autocoder-json, mcp or axon"`
	Pos     Pos    `json:"pos"`
	Msg     string `json:"message"`
	Quote   string `json:"quote,omitempty" jsonschema:"the text the error is about, short"` // the offending text, short
	Fix     string `json:"hint,omitempty" jsonschema:"what to write instead"`               // what to write instead: the hint
	// Source is the dialect's record of the request when the block could be
	// read far enough to have one (an MCP request with invalid arguments
	// still has an id to answer to).
	Source any `json:"-"`
}

func (e *ParseError) Error() string {
	s := fmt.Sprintf("%s block at line %d, column %d: %s", e.Dialect, e.Pos.Line, e.Pos.Col, e.Msg)
	if e.Quote != "" {
		s += fmt.Sprintf(" (near %q)", e.Quote)
	}
	return s
}

// Class is no block: the block cannot be read, so nothing of it is applied.
// Among readable blocks, the engine reports it as a failed step (see
// txn.Engine.Run).
func (e *ParseError) Class() Class { return ClassNoBlock }

// Hint says what to write instead.
func (e *ParseError) Hint() string { return e.Fix }

// Item is one entry of a parsed response, in document order: a step, or the
// error of a block that could not be read. Exactly one of the two is set.
type Item struct {
	Step *Step       `json:"step,omitempty"`
	Err  *ParseError `json:"error,omitempty"`
	// Start and End are the byte offsets of the block's text (End
	// exclusive). Detection drops a block that starts inside another one,
	// so markers quoted inside content are never read as instructions.
	Start int `json:"start"`
	End   int `json:"end"`
}
