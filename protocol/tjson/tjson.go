// Package tjson reads JSON the way language models write it.
//
// Strict RFC 8259 JSON reads exactly as encoding/json reads it, with no
// repairs. On top of that the reader accepts the deviations that the
// autocoder prompt itself teaches models (see DIALECTS.md §1), and records
// each one as a Repair with its line and column:
//
//   - Python-style """…""" and triple-single-quoted strings holding raw line breaks and
//     quotes;
//   - #, // and /* */ comments outside strings;
//   - trailing commas, and a missing comma between members or elements
//     that sit on separate lines;
//   - raw line breaks and tabs inside ordinary "…" strings;
//   - unquoted keys (identifiers) and single-quoted strings;
//   - unknown backslash escapes such as \d, kept as written (Python's rule).
//
// It never guesses: anything else, such as a missing comma between two
// members on the same line, is a *SyntaxError with a 1-based line:column, a
// quote of the text there and a hint of what to write instead.
//
// Start reading at ParseNode (parse.go): one value from an offset, returned
// as a tree of Nodes that remember where they stand in the text; Parse is the
// same reader returning plain Go values. ParseNodeStrict is the strict mode,
// for a dialect whose contract is strict JSON (FlyCode MCP): every repair is
// a *SyntaxError instead.
//
// String rules, decided once for every kind of string:
//   - standard JSON escapes (\n, \", \uXXXX, …) are processed in all strings,
//     """…""" included: the prompt's own example """import pygame\n\nclass…"""
//     means "\n" to be a line break;
//   - a raw CR LF inside a string is the transport's line ending, not content,
//     and becomes "\n"; an escaped "\r\n" is kept;
//   - bytes that are not UTF-8 are a *SyntaxError naming their offset
//     (encoding/json would make them U+FFFD, and the file written would hold
//     other bytes than the response).
//
// Numbers are float64 (Node.Text keeps the literal); a literal beyond
// float64's range reads as ±Inf rather than failing.
package tjson

import (
	"fmt"

	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textpos"
)

// MaxDepth is the deepest nesting of arrays and objects the reader accepts;
// it is encoding/json's own limit, so that both agree on what is valid.
const MaxDepth = 10000

// Pos is a place in the text: a byte offset, a 1-based line and a 1-based
// column counted in characters (runes), which is what an editor shows. It is
// step.Pos, computed by package textpos.
type Pos = step.Pos

// Start is the position of the first byte of a text.
var Start = textpos.Start

// Repair is one deviation from strict JSON that the reader accepted.
type Repair struct {
	Pos  Pos    `json:"pos"`
	What string `json:"what"`
}

// SyntaxError is text that cannot be read as JSON, even tolerantly.
type SyntaxError struct {
	Line, Col int
	Offset    int    // byte offset of the error
	Msg       string // what is wrong, lower case
	Quote     string // a short quote of the text at the error ("" at the end of input)
	Fix       string // what to write instead: the hint
	// Suspect, when set, is the start of the last string before the error
	// that held a raw line break: the likeliest place of a missing closing
	// quote, since such a string reads on through the text after it.
	Suspect *Pos
}

func (e *SyntaxError) Error() string {
	s := fmt.Sprintf("json: %d:%d: %s", e.Line, e.Col, e.Msg)
	if e.Quote != "" {
		s += fmt.Sprintf(" (near %q)", e.Quote)
	}
	return s
}

// Class is no block: the text is not JSON, so its block cannot be read.
func (e *SyntaxError) Class() step.Class { return step.ClassNoBlock }

// Hint says what to do.
func (e *SyntaxError) Hint() string { return e.Fix }

// Kind is the type of a Node.
type Kind uint8

// The kinds of JSON values.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Node is one value read from the text, with its position.
type Node struct {
	Kind    Kind
	Pos     Pos     // where the value starts
	End     int     // byte offset just after the value
	Bool    bool    // Bool
	Num     float64 // Number
	Text    string  // String: the value; Number: the literal
	Elems   []*Node // Array
	Members []Member
}

// Member is one key and value of an object, in document order. Duplicate
// keys are all kept here; Get and Value take the last, as encoding/json does.
type Member struct {
	Key    string
	KeyPos Pos
	Value  *Node
}

// Get returns the value of the last member named key, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Key == key {
			return n.Members[i].Value
		}
	}
	return nil
}
