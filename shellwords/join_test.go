package shellwords

import (
	"slices"
	"testing"
	"unicode/utf8"
)

// TestJoinReadsBackAsItsWords: Simple reads what Join writes as the words
// Join was given, whatever they hold.
func TestJoinReadsBackAsItsWords(t *testing.T) {
	t.Parallel()
	for _, words := range [][]string{
		{"go", "test", "./..."},
		{"python", "-c", "print('hi there')"},
		{"grep", "-rn", "a b", "src"},
		{"if", "x=1", "then"},
		{"a=b", "c"},
		{"echo", "", "*.go", "~x", "$HOME", "a;b", `back\slash`, "{a,b}", "# no comment", "tab\there"},
	} {
		line := Join(words)
		got, err := Simple(line)
		if err != nil || !slices.Equal(got, words) {
			t.Errorf("Join(%q) = %s, read back as %q (%v)", words, line, got, err)
		}
	}
	if got := Join([]string{"go", "test", "./..."}); got != "go test ./..." {
		t.Errorf("plain words are quoted: %s", got)
	}
}

func FuzzJoin(f *testing.F) {
	f.Add("a", "b c", "'")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		words := []string{a, b, c}
		for _, w := range words {
			if !utf8.ValidString(w) {
				return // the shell parser refuses such a line whatever its quotes
			}
			for _, r := range w {
				if r < 0x20 || r == 0x7f {
					return // control characters: the policy refuses them before Simple
				}
			}
		}
		got, err := Simple(Join(words))
		if err != nil || !slices.Equal(got, words) {
			t.Errorf("Join(%q) = %s, read back as %q (%v)", words, Join(words), got, err)
		}
	})
}
