// Package textkind tells what kind of bytes a text is, by one rule for each
// question, so that every reader of a text answers alike: whether it is
// UTF-16 (UTF16: the response reader decodes it, the matcher refuses to
// edit it and says so), and whether it is binary (Binary: the file reads,
// the search, the matcher, the diff writer and the JSON views).
package textkind

import "bytes"

// UTF16 reports whether b is UTF-16, in which byte order (bigEndian) and
// whether it starts with a byte-order mark (bom: the two bytes that are
// not text). A mark tells it; without one, b is UTF-16 when its NUL bytes
// fall in the pattern UTF-16 gives ASCII characters, at odd offsets in
// UTF-16LE and at even ones in UTF-16BE, over a sample of its first 4 KiB.
// A text in a script without NUL bytes (Chinese, say) still has its ASCII
// line breaks, spaces and fences: a fifth of the pairs is enough, and the
// other offset must be far rarer. One NUL byte is no pattern: it is the
// mark of binary content ("a\x00b\n"), so it takes two. A UTF-8
// byte-order mark is not UTF-16; text without a NUL byte never is.
func UTF16(b []byte) (bigEndian, bom, ok bool) {
	switch {
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return false, true, true
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return true, true, true
	}
	if bytes.IndexByte(b, 0) < 0 || len(b) < 2 {
		return false, false, false
	}
	n := min(len(b), 4096) &^ 1
	even, odd := 0, 0
	for i := 0; i < n; i += 2 {
		if b[i] == 0 {
			even++
		}
		if b[i+1] == 0 {
			odd++
		}
	}
	pairs := n / 2
	switch {
	case odd > 1 && odd*5 > pairs && even*5 < odd:
		return false, false, true
	case even > 1 && even*5 > pairs && odd*5 < even:
		return true, false, true
	}
	return false, false, false
}

// GitSniff is how many bytes git looks at to call a file binary
// (FIRST_FEW_BYTES in git's xdiff-interface.c): what git grep skips.
const GitSniff = 8000

// Binary is the offset of the NUL byte that makes b binary, or -1 when b
// is text: no text holds a NUL byte, and git takes one as the sign of a
// binary file too. within is how far to look: GitSniff where autocoder
// does what git does with a file it only looks at (the search skips the
// files git grep skips), 0 for the whole of b where the text itself is
// used (read, diffed, edited or carried as a JSON string), since a NUL
// byte past git's first 8000 would end up in the text.
//
// UTF-16 holds NUL bytes for every ASCII character: ask UTF16 first where
// the advice differs.
func Binary(b []byte, within int) int {
	if within > 0 && len(b) > within {
		b = b[:within]
	}
	return bytes.IndexByte(b, 0)
}
