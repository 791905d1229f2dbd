package shellwords

import (
	"errors"
	"reflect"
	"testing"

	"github.com/autocoder/autocoder/step"
)

// The expected words are Python's: each want was produced by
// shlex.split(in) with CPython 3.
func TestSplitLikeShlex(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"patch_file\npackages/cli/src/tui.py", []string{"patch_file", "packages/cli/src/tui.py"}},
		{"  write_file   \"my file.txt\"  ", []string{"write_file", "my file.txt"}},
		{"a'b c'd", []string{"ab cd"}},
		{`"" ''`, []string{"", ""}},
		{"a;b|c&&d>e #f $HOME `x` *.go", []string{"a;b|c&&d>e", "#f", "$HOME", "`x`", "*.go"}},
		{`"a\"b\\c\$d\n"`, []string{`a"b\c\$d\n`}},
		{`'a\b'`, []string{`a\b`}},
		{`a\ b \'c`, []string{"a b", "'c"}},
		{"a\\\nb", []string{"a\nb"}},
		{"tab\there\r\nnext", []string{"tab", "here", "next"}},
		{"", nil},
		{" \n\t ", nil},
		{"日本 \"語 x\"", []string{"日本", "語 x"}},
	} {
		got, err := Split(c.in)
		if err != nil {
			t.Errorf("Split(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Split(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSplitOpenQuoteSaysWhere(t *testing.T) {
	for _, c := range []struct {
		in        string
		char      byte
		line, col int
	}{
		{"write_file\n\"my file.txt", '"', 2, 1},
		{"git_commit don't", '\'', 1, 15},
		{"é 'x", '\'', 1, 3},
		{`a\`, '\\', 1, 2},
		{`"a\`, '\\', 1, 3},
	} {
		_, err := Split(c.in)
		var qe *QuoteError
		if !errors.As(err, &qe) {
			t.Errorf("Split(%q): err = %v, want *QuoteError", c.in, err)
			continue
		}
		if qe.Char != c.char || qe.Line != c.line || qe.Col != c.col {
			t.Errorf("Split(%q): %c at %d:%d, want %c at %d:%d", c.in, qe.Char, qe.Line, qe.Col, c.char, c.line, c.col)
		}
		if c.in[qe.Offset] != c.char {
			t.Errorf("Split(%q): offset %d is not the %c", c.in, qe.Offset, c.char)
		}
		if step.ClassOf(err) != step.ClassUsage || step.HintOf(err) == "" {
			t.Errorf("Split(%q): class %v hint %q", c.in, step.ClassOf(err), step.HintOf(err))
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"a 'b c' \"d\\\"e\"", "a\\", "'", "x\ny"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := Split(s)
		if err != nil {
			var qe *QuoteError
			if !errors.As(err, &qe) || qe.Offset >= len(s) || s[qe.Offset] != qe.Char {
				t.Fatalf("Split(%q): bad error %v", s, err)
			}
			return
		}
		// A word made only of plain characters survives a round trip.
		for _, w := range words {
			plain := w != ""
			for i := 0; i < len(w); i++ {
				if c := w[i]; c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\'' || c == '"' || c == '\\' {
					plain = false
				}
			}
			if plain {
				again, err := Split(w)
				if err != nil || len(again) != 1 || again[0] != w {
					t.Fatalf("word %q of %q splits again to %q, %v", w, s, again, err)
				}
			}
		}
	})
}
