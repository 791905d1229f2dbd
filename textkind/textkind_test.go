package textkind_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/autocoder/autocoder/matcher"
	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/textkind"
)

// encode is s in UTF-16 of the byte order, with a byte-order mark if bom.
func encode(s string, bigEndian, bom bool) []byte {
	var out []byte
	if bom {
		if bigEndian {
			out = []byte{0xFE, 0xFF}
		} else {
			out = []byte{0xFF, 0xFE}
		}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if bigEndian {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

var samples = []struct {
	name          string
	b             []byte
	utf16, bigEnd bool
}{
	{"ascii", []byte("package main\n"), false, false},
	{"utf-8 chinese", []byte("你好，世界\n"), false, false},
	{"utf-8 bom", []byte("\xEF\xBB\xBFhello\n"), false, false},
	{"le with bom", encode("hello\n", false, true), true, false},
	{"be with bom", encode("hello\n", true, true), true, true},
	{"le ascii", encode("func main() {}\n", false, false), true, false},
	{"be ascii", encode("func main() {}\n", true, false), true, true},
	// Chinese prose in UTF-16 has no NUL in most characters: its spaces
	// and line breaks tell it. A rule that wanted every other byte NUL
	// called this binary.
	{"le chinese", encode("// 你好: a comment in Chinese first\nfunc main() {}\n", false, false), true, false},
	{"be chinese", encode("好的，我来改。\n\n~~~~~act\nwrite_file 说明.md\n~~~~~\n", true, false), true, true},
	{"two nuls", []byte("h\x00i\x00\n\x00"), true, false},
	{"binary", []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x3e\x00"), false, false},
	{"one nul", []byte("a\x00b\n"), false, false},
	{"one nul at the end", []byte("ab\ncd\x00"), false, false},
}

func TestUTF16(t *testing.T) {
	t.Parallel()
	for _, s := range samples {
		be, _, ok := textkind.UTF16(s.b)
		if ok != s.utf16 || ok && be != s.bigEnd {
			t.Errorf("%s: UTF16 = (bigEndian %v, %v), want (%v, %v)", s.name, be, ok, s.bigEnd, s.utf16)
		}
	}
}

// The response reader (protocol.Decode) and the file reader of the edits
// (matcher.CheckText) take the same bytes for UTF-16 of the same order, or
// both for something else: one rule, not two samples that disagree.
func TestReadersAgreeOnUTF16(t *testing.T) {
	t.Parallel()
	for _, s := range samples {
		_, enc := protocol.Decode(s.b)
		decoded := strings.HasPrefix(enc, "utf-16")
		var ee *matcher.EncodingError
		refused := errors.As(matcher.CheckText(s.b), &ee) && strings.HasPrefix(ee.Looks, "UTF-16")
		if decoded != refused || decoded != s.utf16 {
			t.Errorf("%s: the response reader reads %q, the matcher says %v; want both UTF-16 = %v", s.name, enc, ee, s.utf16)
			continue
		}
		if decoded && (strings.HasPrefix(enc, "utf-16be") != (ee.Looks == "UTF-16BE")) {
			t.Errorf("%s: the response reader reads %q, the matcher says %q", s.name, enc, ee.Looks)
		}
	}
}

func TestBinary(t *testing.T) {
	t.Parallel()
	late := append([]byte(strings.Repeat("a", textkind.GitSniff)), 0)
	for _, c := range []struct {
		name   string
		b      []byte
		within int
		want   int
	}{
		{"text", []byte("hello\n"), 0, -1},
		{"nul", []byte("he\x00llo"), 0, 2},
		{"nul within git's sniff", []byte("he\x00llo"), textkind.GitSniff, 2},
		{"nul past git's sniff, whole", late, 0, textkind.GitSniff},
		{"nul past git's sniff, as git looks", late, textkind.GitSniff, -1},
		{"empty", nil, 0, -1},
	} {
		if got := textkind.Binary(c.b, c.within); got != c.want {
			t.Errorf("%s: Binary = %d, want %d", c.name, got, c.want)
		}
	}
}
