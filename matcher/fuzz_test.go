package matcher

import (
	"bytes"
	"testing"
)

// FuzzReplace checks properties that hold for any input: a success is a
// byte splice of the input at [Start, End); an exact match is the only
// occurrence of old and sits at Start; an already-applied edit changes
// nothing; the input is never modified. Seeds come from testdata/matcher.
func FuzzReplace(f *testing.F) {
	for _, c := range loadGolden(f) {
		f.Add(c.src, c.edit.Old, c.edit.New, c.edit.Identifier)
	}
	f.Add([]byte("a\r\nb\r\n"), "a\nb\n", "c\n", "")
	f.Add([]byte("  x\n  y\n"), "x\ny", "z", "")
	f.Fuzz(func(t *testing.T, src []byte, old, nw, ident string) {
		in := bytes.Clone(src)
		out, r, err := Replace(in, Edit{Old: old, New: nw, Identifier: ident})
		if !bytes.Equal(in, src) {
			t.Fatal("Replace modified its input")
		}
		if err != nil {
			if out != nil {
				t.Fatal("output on error")
			}
			return
		}
		if r.Start < 0 || r.End < r.Start || r.End > len(src) {
			t.Fatalf("region [%d,%d) outside the input", r.Start, r.End)
		}
		if !bytes.HasPrefix(out, src[:r.Start]) || !bytes.HasSuffix(out[r.Start:], src[r.End:]) {
			t.Fatalf("not a splice at [%d,%d)", r.Start, r.End)
		}
		if r.AlreadyApplied {
			if !bytes.Equal(out, src) {
				t.Fatal("already applied but changed")
			}
			return
		}
		if r.Tier == Exact {
			o := bytes.TrimPrefix([]byte(old), bom)
			if !bytes.Equal(src[r.Start:r.End], o) {
				t.Fatalf("exact region %q is not old %q", src[r.Start:r.End], o)
			}
			if n := countOverlapping(src, o); n != 1 && ident == "" {
				t.Fatalf("exact match but old occurs %d times", n)
			}
		}
		if err := CheckText(out); err != nil {
			t.Fatalf("output is not text: %v", err)
		}
	})
}

func countOverlapping(s, sub []byte) int {
	n := 0
	for p := 0; ; {
		i := bytes.Index(s[p:], sub)
		if i < 0 {
			return n
		}
		n++
		p += i + 1
	}
}
