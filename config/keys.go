package config

import (
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textpos"
)

// position is a 1-based line and column in the file.
type position struct{ line, col int }

// keyPositions finds where each key and table header of a TOML text is
// written, keyed like toml.Key.String(). The decoder knows these places but
// does not export them, and an error that says "programs.timeout" without a
// line sends the reader searching. It is a small scanner, run only on text
// the decoder has accepted: it follows headers, dotted keys, strings of all
// four kinds, comments and values that span lines. Keys inside inline tables
// are not recorded; their errors point at the inline table's key.
func keyPositions(text string) map[string]position {
	s := &keyScanner{text: text, data: []byte(text), line: 1, out: map[string]position{}}
	s.run()
	return s.out
}

type keyScanner struct {
	text      string
	data      []byte // text, for textpos
	i         int
	line      int
	lineStart int
	table     toml.Key
	out       map[string]position
}

// col is the 1-based column of at in characters (textpos), as every
// position autocoder reports.
func (s *keyScanner) col(at int) int {
	return textpos.Advance(s.data, step.Pos{Offset: s.lineStart, Line: s.line, Col: 1}, at).Col
}

func (s *keyScanner) newline() {
	s.line++
	s.lineStart = s.i + 1
}

func (s *keyScanner) record(k toml.Key, p position) {
	if _, ok := s.out[k.String()]; !ok {
		s.out[k.String()] = p
	}
}

func (s *keyScanner) skipBlanks() {
	for s.i < len(s.text) && (s.text[s.i] == ' ' || s.text[s.i] == '\t' || s.text[s.i] == '\r') {
		s.i++
	}
}

// skipLine moves to the next new line (not past it).
func (s *keyScanner) skipLine() {
	for s.i < len(s.text) && s.text[s.i] != '\n' {
		s.i++
	}
}

func (s *keyScanner) run() {
	for s.i < len(s.text) {
		s.skipBlanks()
		if s.i >= len(s.text) {
			return
		}
		switch c := s.text[s.i]; c {
		case '\n':
			s.newline()
			s.i++
		case '#':
			s.skipLine()
		case '[':
			p := position{s.line, s.col(s.i)}
			s.i++
			if s.i < len(s.text) && s.text[s.i] == '[' {
				s.i++
			}
			k, ok := s.readKey()
			if ok {
				s.table = k
				s.record(k, p)
			}
			s.skipLine()
		default:
			p := position{s.line, s.col(s.i)}
			k, ok := s.readKey()
			if !ok || s.i >= len(s.text) || s.text[s.i] != '=' {
				s.skipLine()
				continue
			}
			s.i++
			full := append(append(toml.Key{}, s.table...), k...)
			for n := len(s.table) + 1; n <= len(full); n++ {
				s.record(full[:n], p) // a dotted key also writes its tables
			}
			s.skipValue()
		}
	}
}

// readKey reads a dotted key and the blanks after it, stopping before "=" or
// "]".
func (s *keyScanner) readKey() (toml.Key, bool) {
	var k toml.Key
	for {
		s.skipBlanks()
		if s.i >= len(s.text) {
			return nil, false
		}
		switch c := s.text[s.i]; {
		case c == '"' || c == '\'':
			end := s.i + 1
			for end < len(s.text) && s.text[end] != c && s.text[end] != '\n' {
				if c == '"' && s.text[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s.text) || s.text[end] != c {
				return nil, false
			}
			part := s.text[s.i+1 : end]
			if c == '"' {
				part = unescapeBasic(part)
			}
			k = append(k, part)
			s.i = end + 1
		case isBare(c):
			start := s.i
			for s.i < len(s.text) && isBare(s.text[s.i]) {
				s.i++
			}
			k = append(k, s.text[start:s.i])
		default:
			return nil, false
		}
		s.skipBlanks()
		if s.i < len(s.text) && s.text[s.i] == '.' {
			s.i++
			continue
		}
		return k, len(k) > 0
	}
}

func isBare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// unescapeBasic undoes the common escapes of a quoted key; keys with rarer
// escapes simply go unplaced.
func unescapeBasic(s string) string {
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\t`, "\t").Replace(s)
}

// skipValue moves past one value, which may span lines inside brackets or
// multi-line strings, stopping at the new line that ends it.
func (s *keyScanner) skipValue() {
	depth := 0
	for s.i < len(s.text) {
		c := s.text[s.i]
		switch {
		case c == '\n':
			if depth == 0 {
				return
			}
			s.newline()
			s.i++
		case c == '#':
			s.skipLine()
		case c == '[' || c == '{':
			depth++
			s.i++
		case c == ']' || c == '}':
			depth--
			s.i++
		case strings.HasPrefix(s.text[s.i:], `"""`) || strings.HasPrefix(s.text[s.i:], `'''`):
			s.skipMultiline(s.text[s.i : s.i+3])
		case c == '"' || c == '\'':
			s.i++
			for s.i < len(s.text) && s.text[s.i] != c && s.text[s.i] != '\n' {
				if c == '"' && s.text[s.i] == '\\' {
					s.i++
				}
				s.i++
			}
			if s.i < len(s.text) && s.text[s.i] == c {
				s.i++
			}
		default:
			s.i++
		}
	}
}

// skipMultiline moves past a multi-line string opened by delim at s.i.
func (s *keyScanner) skipMultiline(delim string) {
	s.i += 3
	for s.i < len(s.text) {
		switch {
		case s.text[s.i] == '\n':
			s.newline()
			s.i++
		case delim == `"""` && s.text[s.i] == '\\':
			if s.i+1 < len(s.text) && s.text[s.i+1] == '\n' {
				s.i++
				continue // the new line is counted on the next turn
			}
			s.i += 2
		case strings.HasPrefix(s.text[s.i:], delim):
			s.i += 3
			// A closing delimiter may be followed by up to two more quotes
			// that belong to the string.
			for k := 0; k < 2 && s.i < len(s.text) && s.text[s.i] == delim[0]; k++ {
				s.i++
			}
			return
		default:
			s.i++
		}
	}
}
