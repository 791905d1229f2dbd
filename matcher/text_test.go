package matcher

import "testing"

func TestKeepLineEndings(t *testing.T) {
	for _, c := range []struct{ name, old, content, want string }{
		{"crlf file, lf content", "a\r\nb\r\n", "x\ny\n", "x\r\ny\r\n"},
		{"crlf file, crlf content", "a\r\nb\r\n", "x\r\ny\r\n", "x\r\ny\r\n"},
		{"crlf file, mixed content", "a\r\n", "x\r\ny\nz", "x\r\ny\r\nz"},
		{"lf file, crlf content", "a\nb\n", "x\r\ny\r\n", "x\ny\n"},
		{"lf file, lf content", "a\nb\n", "x\ny", "x\ny"},
		{"lone cr kept", "a\nb\n", "x\ry\r\n", "x\ry\n"},
		{"mixed file: as sent", "a\r\nb\n", "x\ny\r\n", "x\ny\r\n"},
		{"no line ending: as sent", "a", "x\r\ny\n", "x\r\ny\n"},
		{"empty file: as sent", "", "x\r\n", "x\r\n"},
		{"binary file: as sent", "a\x00\r\n", "x\n", "x\n"},
		{"binary content: as sent", "a\r\n", "x\x00\n", "x\x00\n"},
	} {
		if got := string(KeepLineEndings([]byte(c.old), []byte(c.content))); got != c.want {
			t.Errorf("%s: KeepLineEndings(%q, %q) = %q, want %q", c.name, c.old, c.content, got, c.want)
		}
	}
}
