package tjson

import (
	"bytes"
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
		// A triple-quoted string over several lines is a file verbatim:
		// models put source code there, and its backslashes ("a\nb",
		// 'C:\\games', "say \"hi\"") must reach the file as typed. One on
		// a single line decodes its escapes, as the seed's own example
		// ("""import pygame\n\nclass Tetris:…""") needs. The repair says
		// which reading was used.
		if end, next, ok := tripleEnd(d, start+3, q); ok && bytes.IndexByte(d[start+3:end], '\n') >= 0 {
			p.repair(start, "read a %c%c%c-quoted string over several lines verbatim (backslashes kept as written)", q, q, q)
			return p.verbatim(start+3, end, next)
		}
		p.repair(start, "read a %c%c%c-quoted string on one line, decoding its escapes", q, q, q)
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
			if s := d[start+1 : i]; utf8.Valid(s) { // else slow reports the byte
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

// tripleEnd finds the end of a triple-quoted string whose content starts at
// i: end is where its content ends and next is the offset after the closing
// quotes. No escape is read, as the verbatim reading reads none. In a run of
// more than three quotes the last three close the string, as in slow.
func tripleEnd(d []byte, i int, q byte) (end, next int, ok bool) {
	for k := i; k+2 < len(d); k++ {
		if d[k] == q && d[k+1] == q && d[k+2] == q {
			j := k + 3
			for j < len(d) && d[j] == q {
				j++
			}
			return j - 3, j, true
		}
	}
	return 0, 0, false
}

// verbatim reads the content d[i:end] of a multi-line triple-quoted string
// as written: only the transport's CRLF line endings become LF, as in every
// string; bytes that are not UTF-8 are refused as in slow.
func (p *parser) verbatim(i, end, next int) string {
	buf := p.buf[:0]
	d := p.data
	for i < end {
		j := bytes.Index(d[i:end], []byte("\r\n"))
		if j < 0 {
			buf = p.appendRun(buf, i, end)
			break
		}
		buf = append(p.appendRun(buf, i, i+j), '\n')
		i += j + 2
	}
	p.off = next
	return p.finish(buf)
}

// special marks the bytes that end a run of plain string content: the
// backslash and the control bytes. Quotes are checked apart, since which one
// closes depends on the string.
var special = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['\\'] = true
	return t
}()

// slow reads a string that needs more than a copy: escapes, raw control
// bytes, bytes that are not UTF-8, or a triple-quoted string. For a
// triple-quoted string raw control bytes are content; for an ordinary one
// raw line breaks and tabs are accepted as a repair and other control bytes
// are an error. Each kind of repair is reported once per string, so that a
// file of a thousand raw lines gives one repair, not a thousand.
func (p *parser) slow(start int, q byte, triple bool) string {
	d := p.data
	buf := p.buf[:0]
	i := start + 1
	if triple {
		i = start + 3
	}
	var sawBreak, sawTab bool
	unknown, firstUnknown := 0, 0
	for {
		j := i
		var high byte // the OR of the run's bytes: below 0x80, all ASCII
		for j < len(d) && !special[d[j]] && d[j] != q {
			high |= d[j]
			j++
		}
		if high < utf8.RuneSelf {
			buf = append(buf, d[i:j]...)
		} else {
			buf = p.appendRun(buf, i, j)
		}
		i = j
		if i >= len(d) {
			p.unterminated(start, q, triple)
		}
		c := d[i]
		switch {
		case c == q:
			if !triple {
				i++
				goto done
			}
			if i+2 < len(d) && d[i+1] == q && d[i+2] == q {
				// In a run of more than three quotes the last three close
				// the string: a quote right after a closed string could not
				// be read anyway, so the longer run is unambiguous.
				j := i + 3
				for j < len(d) && d[j] == q {
					j++
				}
				buf = append(buf, d[i:j-3]...)
				i = j
				goto done
			}
			buf = append(buf, c)
			i++
		case c == '\\':
			var unk bool
			buf, i, unk = p.escape(buf, i, start, q, triple)
			if unk {
				if unknown == 0 {
					firstUnknown = i - 1
				}
				unknown++
			}
		case c == '\r' && i+1 < len(d) && d[i+1] == '\n':
			// The transport's line ending, not content.
			buf = append(buf, '\n')
			i += 2
			sawBreak = true
		default: // a control byte
			switch {
			case triple:
			case c == '\n' || c == '\r':
				sawBreak = true
			case c == '\t':
				sawTab = true
			default:
				p.fail(i, fmt.Sprintf(`write it as the escape \u%04x`, c), "control character U+%04X inside a string", c)
			}
			buf = append(buf, c)
			i++
		}
	}
done:
	p.off = i
	if !triple && sawBreak {
		p.repair(start, "kept raw line breaks inside a string")
		at := p.pos(start)
		p.multiline = &at
	}
	if !triple && sawTab {
		p.repair(start, "kept a raw tab inside a string")
	}
	if unknown > 0 {
		r, _ := utf8.DecodeRune(d[firstUnknown+1:])
		what := strconv.QuoteRune(r)
		if r >= 0x20 && r != 0x7f {
			what = string(r)
		}
		more := ""
		if unknown > 1 {
			more = fmt.Sprintf(" (and %d more unknown escapes in this string)", unknown-1)
		}
		p.repair(firstUnknown, `kept the unknown escape \%s as written%s`, what, more)
	}
	return p.finish(buf)
}

// appendRun appends string content d[i:j], refusing bytes that are not
// UTF-8: encoding/json would turn them into U+FFFD, and the file written
// would then hold other bytes than the response did. Content is kept or
// refused, never altered.
func (p *parser) appendRun(buf []byte, i, j int) []byte {
	run := p.data[i:j]
	if utf8.Valid(run) {
		return append(buf, run...)
	}
	for k := 0; k < len(run); {
		r, n := utf8.DecodeRune(run[k:])
		if r == utf8.RuneError && n == 1 {
			p.fail(i+k, `write the string as UTF-8 text, or its bytes as \u escapes of the characters meant`,
				"byte 0x%02X at offset %d inside a string is not UTF-8", run[k], i+k)
		}
		k += n
	}
	return append(buf, run...)
}

func (p *parser) finish(buf []byte) string {
	s := string(buf)
	p.buf = buf[:0]
	return s
}

// escape processes the backslash escape at d[i] and returns the offset after
// it. Standard JSON escapes mean what JSON says; \' means a quote; any other
// escape (\d in a regular expression, say) is kept as written, which is what
// Python does with it, and reported as unknown for the caller to record.
func (p *parser) escape(buf []byte, i, start int, q byte, triple bool) (out []byte, next int, unknown bool) {
	d := p.data
	if i+1 >= len(d) {
		p.unterminated(start, q, triple)
	}
	switch e := d[i+1]; e {
	case '"', '\\', '/':
		return append(buf, e), i + 2, false
	case 'b':
		return append(buf, '\b'), i + 2, false
	case 'f':
		return append(buf, '\f'), i + 2, false
	case 'n':
		return append(buf, '\n'), i + 2, false
	case 'r':
		return append(buf, '\r'), i + 2, false
	case 't':
		return append(buf, '\t'), i + 2, false
	case '\'':
		p.repair(i, `read the escape \' as '`)
		return append(buf, '\''), i + 2, false
	case 'u':
		r := Hex4(d[i:])
		if r < 0 {
			p.fail(i, `write \u and four hex digits, as in \u00e9, or \\ for a backslash`, "malformed \\u escape")
		}
		i += 6
		// The same rule as encoding/json: a surrogate pair is one rune; a
		// lone surrogate becomes U+FFFD and the next escape stays separate.
		if utf16.IsSurrogate(r) {
			if dec := utf16.DecodeRune(r, Hex4(d[i:])); dec != unicode.ReplacementChar {
				return utf8.AppendRune(buf, dec), i + 6, false
			}
			r = unicode.ReplacementChar
		}
		return utf8.AppendRune(buf, r), i, false
	default:
		// Only the backslash is copied here; the character after it is
		// read by the caller's loop, so a raw line break or a closing
		// quote after a backslash keeps its meaning.
		return append(buf, '\\'), i + 1, true
	}
}

// Hex4 decodes the escape \uXXXX at the start of s, or returns -1.
func Hex4(s []byte) rune {
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
