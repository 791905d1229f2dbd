package textpos

import (
	"testing"
	"unicode/utf8"

	"github.com/autocoder/autocoder/step"
)

// TestAgree: Of, Advance from every earlier position, Locate from every
// other position and Index.Pos give the same position for every offset at
// a character's start, with columns in characters.
func TestAgree(t *testing.T) {
	for _, text := range []string{"", "a", "ab\ncd\n", "第一行\r\n中文 x\n\nlast", "\n\n\n", "é\nü"} {
		data := []byte(text)
		x := NewIndex(data)
		var offs []int
		for i := 0; i <= len(data); i++ {
			if i == len(data) || utf8.RuneStart(data[i]) {
				offs = append(offs, i)
			}
		}
		for _, off := range offs {
			want := Of(data, off)
			if got := x.Pos(off); got != want {
				t.Errorf("%q: Index.Pos(%d) = %+v, Of = %+v", text, off, got, want)
			}
			for _, from := range offs {
				p := Of(data, from)
				if from <= off {
					if got := Advance(data, p, off); got != want {
						t.Errorf("%q: Advance(%+v, %d) = %+v, want %+v", text, p, off, got, want)
					}
				}
				if got := Locate(data, Start, p, off); got != want {
					t.Errorf("%q: Locate(near %+v, %d) = %+v, want %+v", text, p, off, got, want)
				}
			}
		}
	}
	data := []byte("第一行\r\n中文 x")
	if got, want := Of(data, len(data)-1), (step.Pos{Offset: len(data) - 1, Line: 2, Col: 4}); got != want {
		t.Errorf("Of = %+v, want %+v (columns in characters)", got, want)
	}
	if got := NewIndex(data).LineStart(len(data) - 1); got != len("第一行\r\n") {
		t.Errorf("LineStart = %d", got)
	}
}

// TestClip: a long value is cut at a character boundary with "…"; a short
// one is kept whole.
func TestClip(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 60, "short"},
		{"abcdef", 3, "abc…"},
		{"日本語", 4, "日…"}, // 4 bytes end inside 本: cut before it
		{"日本語", 6, "日本…"},
		{"", 0, ""},
	} {
		if got := Clip(c.in, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
