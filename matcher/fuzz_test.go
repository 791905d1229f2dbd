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
	// The IndentLevels tier, both ways.
	f.Add([]byte("func f() {\n\tif x {\n\t\ty()\n\t}\n}\n"), "    if x {\n        y()\n    }\n", "    if x {\n        z()\n    }\n", "")
	f.Add([]byte("class A:\n    def f(self):\n        return 1\n"), "\tdef f(self):\n\t\treturn 1\n", "\tdef f(self):\n\t\treturn 2\n", "")
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
		// Every tier tolerates white space only: the region replaced holds
		// the old text's words, the text put in its place the new text's.
		put := out[r.Start : len(out)-(len(src)-r.End)]
		if !sameWords(src[r.Start:r.End], bytes.TrimPrefix([]byte(old), bom)) {
			t.Fatalf("%v tier replaced %q, whose words are not those of old %q", r.Tier, src[r.Start:r.End], old)
		}
		if !sameWords(put, bytes.TrimPrefix([]byte(nw), bom)) {
			t.Fatalf("%v tier put %q, whose words are not those of new %q", r.Tier, put, nw)
		}
		if r.Tier == IndentLevels {
			// Tabs stay tabs (and spaces spaces): where every indented line
			// of the region is indented with one character, so is every
			// line put in its place.
			if c := indentChars(src[r.Start:r.End]); len(c) == 1 {
				if p := indentChars(put); len(p) > 1 || len(p) == 1 && p != c {
					t.Fatalf("the region indents with %q, the text put in its place with %q: %q", c, p, put)
				}
			}
		}
	})
}

// sameWords reports whether a and b hold the same words in the same order,
// whatever white space separates them.
func sameWords(a, b []byte) bool {
	fa, fb := bytes.Fields(a), bytes.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if !bytes.Equal(fa[i], fb[i]) {
			return false
		}
	}
	return true
}

// indentChars returns the characters (tab, space) that begin the non-blank
// lines of b, each once.
func indentChars(b []byte) string {
	var tab, space bool
	for _, l := range bytes.Split(b, nl) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		for _, c := range l {
			if c == '\t' {
				tab = true
			} else if c == ' ' {
				space = true
			} else {
				break
			}
		}
	}
	s := ""
	if tab {
		s += "\t"
	}
	if space {
		s += " "
	}
	return s
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
