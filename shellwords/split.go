// Package shellwords reads one shell command line in the two ways autocoder
// needs: Split gives its words as Python's shlex.split does (how the Axon
// reference reads an act block), and Simple gives the words of a single
// simple command as /bin/sh would run it, refusing anything that makes the
// shell do more than run one program with fixed words (a list or pipeline,
// a redirection, an expansion, a glob), which is what the program policy
// needs to know what would run.
//
// Start with Split (split.go) for the dialect reader and Simple (simple.go)
// for the program policy; Command (command.go) is Simple as the policy and
// the allow list of autocoder.toml read a line. Simple reads the line with mvdan.cc/sh's parser, so
// that what it calls one simple command is what a real shell parser calls
// one. Split is a small state machine of its own: shlex.split is not a shell
// (";", "|", "&", "<", ">", "(", ")", "#" and "$" are ordinary characters to
// it), and the Axon reference splits act blocks with shlex.split, so a
// shell parser would split real plans differently from the reference.
//
// Positions are 1-based; columns count characters, not bytes, as every other
// reader of the project counts them.
package shellwords

import (
	"fmt"

	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textpos"
)

// QuoteError is a line Split cannot split: a quote left open, or a
// backslash with nothing after it. Offset is the byte offset of the quote or
// backslash in the string given to Split; Line and Col are its 1-based line
// and column (in characters).
type QuoteError struct {
	Char   byte // '\'', '"' or '\\'
	Offset int
	Line   int
	Col    int
}

func (e *QuoteError) Error() string {
	if e.Char == '\\' {
		return fmt.Sprintf("line %d, column %d: a backslash at the end escapes nothing", e.Line, e.Col)
	}
	return fmt.Sprintf("line %d, column %d: the %c quote is never closed", e.Line, e.Col, e.Char)
}

// Class is step.ClassUsage: the line cannot be used as written.
func (e *QuoteError) Class() step.Class { return step.ClassUsage }

// Hint says how to fix the line.
func (e *QuoteError) Hint() string {
	if e.Char == '\\' {
		return "remove the trailing backslash, or write \\\\ for a backslash"
	}
	return fmt.Sprintf("close the %c quote, or write the value without it", e.Char)
}

// Split splits s into words exactly as Python's shlex.split(s) does (POSIX
// mode, no comments): blanks, tabs and new lines separate words; '…' keeps
// everything literally; "…" keeps everything except that a backslash before
// " or \ escapes it; outside quotes a backslash keeps the next character
// (a new line too); quotes inside a word join with it (a'b c'd is one word
// "ab cd"), and "" is an empty word. Nothing is expanded and no character is
// an operator: "a;b" is one word. An open quote, or a backslash ending the
// line, is a *QuoteError.
func Split(s string) ([]string, error) {
	const (
		blank  = iota // between words
		word          // inside a word, outside quotes
		single        // inside '…'
		double        // inside "…"
	)
	var (
		words []string
		cur   []byte
		state = blank
		open  int // offset of the open quote
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch state {
		case blank, word:
			switch c {
			case ' ', '\t', '\n', '\r':
				if state == word {
					words = append(words, string(cur))
					cur, state = cur[:0:0], blank
				}
			case '\'', '"':
				open = i
				state = single
				if c == '"' {
					state = double
				}
			case '\\':
				if i+1 == len(s) {
					return nil, quoteError(s, '\\', i)
				}
				i++
				cur = append(cur, s[i])
				state = word
			default:
				cur = append(cur, c)
				state = word
			}
		case single:
			if c == '\'' {
				state = word
				continue
			}
			cur = append(cur, c)
		case double:
			switch {
			case c == '"':
				state = word
			case c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
				i++
				cur = append(cur, s[i])
			case c == '\\' && i+1 == len(s):
				// shlex reads the escape state first and fails on the
				// missing character, before it sees the open quote.
				return nil, quoteError(s, '\\', i)
			default:
				cur = append(cur, c)
			}
		}
	}
	switch state {
	case single:
		return nil, quoteError(s, '\'', open)
	case double:
		return nil, quoteError(s, '"', open)
	case word: // also after a closed quote: "" is an empty word
		words = append(words, string(cur))
	}
	return words, nil
}

// quoteError builds the error for the character at byte offset off of s.
func quoteError(s string, c byte, off int) *QuoteError {
	line, col := Position(s, off)
	return &QuoteError{Char: c, Offset: off, Line: line, Col: col}
}

// Position is the 1-based line and column (in characters) of byte offset
// off in s (textpos, the one converter).
func Position(s string, off int) (line, col int) {
	p := textpos.Of([]byte(s), off)
	return p.Line, p.Col
}
