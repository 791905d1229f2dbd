package matcher

import (
	"errors"
	"strings"
	"testing"
)

// TestPlaced covers the edits that say where they go besides their old text
// (FORMATS.md 1.2): anchors, chunks in order, the end of the file.
func TestPlaced(t *testing.T) {
	var (
		amb    *AmbiguousMatchError
		anchor *AnchorError
		empty  *EmptyOldError
	)
	type c struct {
		name    string
		src     string
		edits   []Edit
		want    string
		wantErr any
	}
	cases := []c{
		{name: "anchor picks the one after it", src: "def f():\n    pass\ndef g():\n    pass\n",
			edits: []Edit{{Anchors: []string{"def g():"}, Old: "    pass\n", New: "    return 1\n"}},
			want:  "def f():\n    pass\ndef g():\n    return 1\n"},
		{name: "anchor is a whole line, trimmed", src: "x\n  impl Config {\n    a\n",
			edits: []Edit{{Anchors: []string{"impl Config"}, Old: "    a\n", New: "    b\n"}}, wantErr: &anchor},
		{name: "anchor trimmed at both ends", src: "x\n  impl Config {  \na\n",
			edits: []Edit{{Anchors: []string{" impl Config { "}, Old: "a\n", New: "b\n"}}, want: "x\n  impl Config {  \nb\n"},
		{name: "anchor with a typographic dash", src: "# a - b\nv\n",
			edits: []Edit{{Anchors: []string{"# a \u2013 b"}, Old: "v\n", New: "w\n"}}, want: "# a - b\nw\n"},
		{name: "anchor found nowhere refuses even alone", src: "a\nb\n",
			edits: []Edit{{Anchors: []string{"nothing"}, Old: "b\n", New: "c\n"}}, wantErr: &anchor},
		{name: "nested anchors", src: "class A:\n  def f():\n    x\nclass B:\n  def f():\n    x\n",
			edits: []Edit{{Anchors: []string{"class B:", "def f():"}, Old: "    x\n", New: "    y\n"}},
			want:  "class A:\n  def f():\n    x\nclass B:\n  def f():\n    y\n"},
		{name: "a parent anchor already passed", src: "class T:\n  def a():\n    x\n  def b():\n    x\n",
			edits: []Edit{
				{Anchors: []string{"class T:", "def a():"}, Old: "    x\n", New: "    y\n"},
				{Anchors: []string{"class T:", "def b():"}, Old: "    x\n", New: "    z\n", Follows: true}},
			want: "class T:\n  def a():\n    y\n  def b():\n    z\n"},
		{name: "no anchor: two places refuse", src: "x\na\nx\n",
			edits: []Edit{{Old: "x\n", New: "y\n", Follows: true}}, wantErr: &amb},
		{name: "follows: unique after the previous chunk", src: "x\na\nx\nb\n",
			edits: []Edit{{Old: "x\na\n", New: "X\na\n", Follows: true}, {Old: "x\n", New: "y\n", Follows: true}},
			want:  "X\na\ny\nb\n"},
		{name: "end of file pins the last", src: "x\na\nx\n",
			edits: []Edit{{Old: "x\n", New: "y\n", AtEnd: true}}, want: "x\na\ny\n"},
		{name: "pure addition appends", src: "a\n", edits: []Edit{{New: "b\n", AtEnd: true}}, want: "a\nb\n"},
		{name: "append keeps no final newline", src: "a", edits: []Edit{{New: "b\n", AtEnd: true}}, want: "a\nb"},
		{name: "append keeps CRLF", src: "a\r\n", edits: []Edit{{New: "b\nc\n", AtEnd: true}}, want: "a\r\nb\r\nc\r\n"},
		{name: "append twice is once", src: "a\nb\n", edits: []Edit{{New: "b\n", AtEnd: true}}, want: "a\nb\n"},
		{name: "empty old without an end refuses", src: "a\n", edits: []Edit{{New: "b\n", Follows: true}}, wantErr: &empty},
		{name: "CRLF kept under an anchor", src: "f\r\n a\r\ng\r\n a\r\n",
			edits: []Edit{{Anchors: []string{"g"}, Old: " a\n", New: " b\n c\n"}}, want: "f\r\n a\r\ng\r\n b\r\n c\r\n"},
		{name: "insertion sent twice under an anchor", src: "def g():\n    pass\n    x = 1\n",
			edits: []Edit{{Anchors: []string{"def g():"}, Old: "    pass\n", New: "    pass\n    x = 1\n"}},
			want:  "def g():\n    pass\n    x = 1\n"},
	}
	// An ambiguous chunk is told to add an @@ anchor.
	_, _, err := ReplaceAll([]byte("x\na\nx\n"), []Edit{{Old: "x\n", New: "y\n", Follows: true}})
	if !errors.As(err, &amb) || !strings.Contains(amb.Hint(), "@@ line") {
		t.Errorf("hint of %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := ReplaceAll([]byte(tc.src), tc.edits)
			if tc.wantErr != nil {
				if err == nil || !errors.As(err, tc.wantErr) {
					t.Fatalf("err = %v, want %T", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Fatalf("got %q, want %q", out, tc.want)
			}
		})
	}
}
