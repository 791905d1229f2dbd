package termsafe

import (
	"bytes"
	"testing"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\n\tindented": "plain text\n\tindented",
		"caf\u00e9 \u4e16":       "caf\u00e9 \u4e16",
		"\x1b[1A\x1b[2Kok":       `\x1b[1A\x1b[2Kok`,
		"a\rb":                   `a\rb`,
		"bell\a del\x7f":         `bell\x07 del\x7f`,
		"c1\u0085 \u009b":        `c1\u0085 \u009b`,
		"\u202egnp.exe":          `\u202egnp.exe`,
		"bad\xffbyte":            `bad\xffbyte`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := Writer{W: &b}
	n, err := w.Write([]byte("failed \x1b[2K step\n"))
	if n != 17 || err != nil || b.String() != "failed \\x1b[2K step\n" {
		t.Errorf("Write: %d %v %q", n, err, b.String())
	}
}
