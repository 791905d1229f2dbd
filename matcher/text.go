package matcher

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/autocoder/autocoder/textkind"
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
	if bigEndian, _, ok := textkind.UTF16(content); ok {
		looks := "UTF-16LE"
		if bigEndian {
			looks = "UTF-16BE"
		}
		return encodingError(in, content, 0, looks)
	}
	if i := textkind.Binary(content, 0); i >= 0 {
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
	if !ok || textkind.Binary(content, 0) >= 0 {
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
	if n == 0 || textkind.Binary(b, 0) >= 0 {
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
