package tjson

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// str reads the string at p.off: "…", '…', """…""" or its triple-single-quoted form.
func (p *parser) str() string {
	d := p.data
	q := d[p.off]
	start := p.off
	if p.off+2 < len(d) && d[p.off+1] == q && d[p.off+2] == q {
		p.repair(start, "read a %c%c%c-quoted string", q, q, q)
		return p.slow(start, q, true)
	}
	if q == '\'' {
		p.repair(start, "read a single-quoted string")
	}
	// Most strings hold no escape and no raw control byte: take them as
	// they are, without a copy through the scratch buffer.
	for i := start + 1; i < len(d); i++ {
		c := d[i]
		if c == q {
			if s := d[start+1 : i]; utf8.Valid(s) {
				p.off = i + 1
				return string(s)
			}
			break
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	return p.slow(start, q, false)
}

// slow reads a string byte by byte, processing escapes. For a triple-quoted
// string raw control bytes are content; for an ordinary one raw line breaks
// and tabs are accepted as a repair and other control bytes are an error.
func (p *parser) slow(start int, q byte, triple bool) string {
	d := p.data
	buf := p.buf[:0]
	i := start + 1
	if triple {
		i = start + 3
	}
	run := i // start of the bytes not yet copied to buf
	var sawBreak, sawTab bool
	for {
		if i >= len(d) {
			p.unterminated(start, q, triple)
		}
		c := d[i]
		switch {
		case c == q:
			if !triple {
				buf = append(buf, d[run:i]...)
				p.off = i + 1
				return p.finish(buf)
			}
			if i+2 < len(d) && d[i+1] == q && d[i+2] == q {
				// In a run of more than three quotes the last three close
				// the string: a quote right after a closed string could not
				// be read anyway, so the longer run is unambiguous.
				j := i + 3
				for j < len(d) && d[j] == q {
					j++
				}
				buf = append(buf, d[run:j-3]...)
				p.off = j
				return p.finish(buf)
			}
			i++
		case c == '\\':
			buf = append(buf, d[run:i]...)
			buf, i = p.escape(buf, i, start, q, triple)
			run = i
		case c == '\r' && i+1 < len(d) && d[i+1] == '\n':
			// The transport's line ending, not content.
			buf = append(buf, d[run:i]...)
			buf = append(buf, '\n')
			i += 2
			run = i
			sawBreak = true
		case c < 0x20:
			switch {
			case triple:
			case c == '\n' || c == '\r':
				sawBreak = true
			case c == '\t':
				sawTab = true
			default:
				p.fail(i, fmt.Sprintf(`write it as the escape \u%04x`, c), "control character U+%04X inside a string", c)
			}
			i++
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && n == 1 {
				buf = append(buf, d[run:i]...)
				buf = utf8.AppendRune(buf, unicode.ReplacementChar)
				run = i + 1
			}
			i += n
		default:
			i++
		}
		if !triple && (sawBreak || sawTab) {
			if sawBreak {
				p.repair(start, "kept raw line breaks inside a string")
				at := p.pos(start)
				p.multiline = &at
			} else {
				p.repair(start, "kept a raw tab inside a string")
			}
			// Report each kind once per string: continue in a loop that
			// records only the kind not seen yet.
			return p.slowRest(start, q, buf, i, run, sawBreak, sawTab)
		}
	}
}

// slowRest continues slow after the first repair of an ordinary string was
// recorded, so that a string with a thousand raw lines yields at most one
// repair per kind.
func (p *parser) slowRest(start int, q byte, buf []byte, i, run int, sawBreak, sawTab bool) string {
	d := p.data
	for {
		if i >= len(d) {
			p.unterminated(start, q, false)
		}
		c := d[i]
		switch {
		case c == q:
			buf = append(buf, d[run:i]...)
			p.off = i + 1
			return p.finish(buf)
		case c == '\\':
			buf = append(buf, d[run:i]...)
			buf, i = p.escape(buf, i, start, q, false)
			run = i
		case c == '\r' && i+1 < len(d) && d[i+1] == '\n':
			buf = append(buf, d[run:i]...)
			buf = append(buf, '\n')
			i += 2
			run = i
		case c < 0x20:
			switch {
			case c == '\n' || c == '\r':
				if !sawBreak {
					sawBreak = true
					p.repair(start, "kept raw line breaks inside a string")
					at := p.pos(start)
					p.multiline = &at
				}
			case c == '\t':
				if !sawTab {
					sawTab = true
					p.repair(start, "kept a raw tab inside a string")
				}
			default:
				p.fail(i, fmt.Sprintf(`write it as the escape \u%04x`, c), "control character U+%04X inside a string", c)
			}
			i++
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && n == 1 {
				buf = append(buf, d[run:i]...)
				buf = utf8.AppendRune(buf, unicode.ReplacementChar)
				run = i + 1
			}
			i += n
		default:
			i++
		}
	}
}

func (p *parser) finish(buf []byte) string {
	s := string(buf)
	p.buf = buf[:0]
	return s
}

// escape processes the backslash escape at d[i] and returns the offset after
// it. Standard JSON escapes mean what JSON says; \' means a quote; any other
// escape (\d in a regular expression, say) is kept as written, which is what
// Python does with it, and recorded.
func (p *parser) escape(buf []byte, i, start int, q byte, triple bool) ([]byte, int) {
	d := p.data
	if i+1 >= len(d) {
		p.unterminated(start, q, triple)
	}
	switch e := d[i+1]; e {
	case '"', '\\', '/':
		return append(buf, e), i + 2
	case 'b':
		return append(buf, '\b'), i + 2
	case 'f':
		return append(buf, '\f'), i + 2
	case 'n':
		return append(buf, '\n'), i + 2
	case 'r':
		return append(buf, '\r'), i + 2
	case 't':
		return append(buf, '\t'), i + 2
	case '\'':
		p.repair(i, `read the escape \' as '`)
		return append(buf, '\''), i + 2
	case 'u':
		r := getu4(d[i:])
		if r < 0 {
			p.fail(i, `write \u and four hex digits, as in \u00e9, or \\ for a backslash`, "malformed \\u escape")
		}
		i += 6
		// The same rule as encoding/json: a surrogate pair is one rune; a
		// lone surrogate becomes U+FFFD and the next escape stays separate.
		if utf16.IsSurrogate(r) {
			if dec := utf16.DecodeRune(r, getu4(d[i:])); dec != unicode.ReplacementChar {
				return utf8.AppendRune(buf, dec), i + 6
			}
			r = unicode.ReplacementChar
		}
		return utf8.AppendRune(buf, r), i
	default:
		r, _ := utf8.DecodeRune(d[i+1:])
		what := strconv.QuoteRune(r)
		if r >= 0x20 && r != 0x7f {
			what = string(r)
		}
		p.repair(i, `kept the unknown escape \%s as written`, what)
		// Only the backslash is copied here; the character after it is
		// read by the caller's loop, so a raw line break or a closing
		// quote after a backslash keeps its meaning.
		return append(buf, '\\'), i + 1
	}
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

func (p *parser) unterminated(start int, q byte, triple bool) {
	at := p.pos(start)
	open := string(q)
	if triple {
		open = string([]byte{q, q, q})
	}
	p.fail(start, fmt.Sprintf("close the string with %s", open),
		"unterminated string: the %s at line %d, column %d is never closed", open, at.Line, at.Col)
}
