package matcher

import (
	"bytes"
	"testing"
)

// TestSentTwiceWhenNewContainsOld: an edit whose new text extends its old
// text must not apply a second time.
func TestSentTwiceWhenNewContainsOld(t *testing.T) {
	cases := []struct{ file, old, new string }{
		{"def c():\n    return 3\n", "def c():\n    return 3", "def c():\n    return 30"},
		{"x = 1\n", "x = 1", "x = 1 + 1"},
		{"call(a)\n", "call(a", "call(a, b"},
		{"a\n", "a", "aa"}, // old twice inside new: still already applied
	}
	for _, c := range cases {
		once, r, err := Replace([]byte(c.file), Edit{Old: c.old, New: c.new})
		if err != nil || r.AlreadyApplied {
			t.Fatalf("%q: first application: %v %+v", c.old, err, r)
		}
		twice, r, err := Replace(once, Edit{Old: c.old, New: c.new})
		if err != nil || !r.AlreadyApplied || !bytes.Equal(twice, once) {
			t.Fatalf("%q: second application: err %v, already %v, %q -> %q", c.old, err, r.AlreadyApplied, once, twice)
		}
	}
	// The new text elsewhere does not hide a real occurrence of the old one.
	out, r, err := Replace([]byte("return 30\nreturn 3\n"), Edit{Old: "return 3\n", New: "return 30\n"})
	if err != nil || r.AlreadyApplied || string(out) != "return 30\nreturn 30\n" {
		t.Fatalf("got %q %+v %v", out, r, err)
	}
}
