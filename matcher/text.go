package matcher

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/autocoder/autocoder/textpos"
)

var bom = []byte("\xEF\xBB\xBF")

// CheckText refuses content that cannot be edited as text: a NUL byte makes
// it binary (*BinaryError), bytes that are not UTF-8 make it undecodable
// (*EncodingError, which says where and which encoding the bytes resemble).
func CheckText(content []byte) error { return checkText("file", content) }

func checkText(in string, content []byte) error {
	// UTF-16 holds NUL bytes for every ASCII character, so it is recognised
	// before the NUL test: "binary" would be the wrong advice for it.
	if looks := utf16Guess(content); looks != "" {
		return encodingError(in, content, 0, looks)
	}
	if i := bytes.IndexByte(content, 0); i >= 0 {
		return &BinaryError{In: in, Offset: i, Line: textpos.Of(content, i).Line}
	}
	if utf8.Valid(content) {
		return nil
	}
	off := 0
	for off < len(content) {
		r, n := utf8.DecodeRune(content[off:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		off += n
	}
	looks := ""
	if latin1Like(content) {
		looks = "Latin-1 (ISO-8859-1 or Windows-1252)"
	}
	return encodingError(in, content, off, looks)
}

func encodingError(in string, content []byte, off int, looks string) error {
	ls := bytes.LastIndexByte(content[:off], '\n') + 1
	lo, hi := max(off-12, ls), min(off+12, len(content))
	at := textpos.Of(content, off) // columns in characters, as every position
	return &EncodingError{
		In: in, Offset: off,
		Line:  at.Line,
		Col:   at.Col,
		Quote: fmt.Sprintf("%q", content[lo:hi]),
		Looks: looks,
	}
}

// utf16Guess recognises UTF-16 by its byte order mark, or by NUL bytes in
// every other position of the first bytes (ASCII text in UTF-16).
func utf16Guess(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return "UTF-16LE"
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return "UTF-16BE"
	}
	n := min(len(b)&^1, 64)
	if n < 4 {
		return ""
	}
	evenNUL, oddNUL := 0, 0
	for i := 0; i < n; i += 2 {
		if b[i] == 0 {
			evenNUL++
		}
		if b[i+1] == 0 {
			oddNUL++
		}
	}
	half := n / 2
	switch {
	case oddNUL == half && evenNUL == 0:
		return "UTF-16LE"
	case evenNUL == half && oddNUL == 0:
		return "UTF-16BE"
	}
	return ""
}

// latin1Like reports whether every invalid byte is a lone high byte, as
// Latin-1 or Windows-1252 text has, rather than a broken multi-byte sequence.
func latin1Like(b []byte) bool {
	for off := 0; off < len(b); {
		r, n := utf8.DecodeRune(b[off:])
		if r == utf8.RuneError && n <= 1 && off+1 < len(b) && b[off+1]&0xC0 == 0x80 {
			return false // a lead byte with a continuation: broken UTF-8
		}
		off += n
	}
	return true
}

// KeepLineEndings gives content the line endings of old, the file it
// replaces: a whole-file write keeps the file's style as an edit does (an
// edit's new text takes the style of the line it replaces). Only a file
// whose every line ending is "\r\n", or every one "\n", has a style; a
// file with mixed endings, none at all, or a NUL byte (binary) has none,
// and content is returned as it is. This is the one line-style rule: the
// engine applies git's own conversions (core.autocrlf, .gitattributes) on
// top of it.
func KeepLineEndings(old, content []byte) []byte {
	crlf, ok := lineStyle(old)
	if !ok || bytes.IndexByte(content, 0) >= 0 {
		return content
	}
	lf := bytes.ReplaceAll(content, []byte("\r\n"), []byte("\n"))
	if crlf {
		return bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n"))
	}
	return lf
}

// lineStyle reports whether every line ending of b is "\r\n" (crlf) or
// every one "\n"; ok is false when b has none, has both, or is binary.
func lineStyle(b []byte) (crlf, ok bool) {
	n := bytes.Count(b, []byte("\n"))
	if n == 0 || bytes.IndexByte(b, 0) >= 0 {
		return false, false
	}
	switch bytes.Count(b, []byte("\r\n")) {
	case n:
		return true, true
	case 0:
		return false, true
	}
	return false, false
}
