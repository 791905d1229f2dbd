package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestProgramAllowed(t *testing.T) {
	on := Default()
	on.Programs.Enabled = true
	on.Programs.Allow = []string{"go test", "npm run", "make"}
	off := Default()
	off.Programs.Allow = on.Programs.Allow
	empty := Default()
	empty.Programs.Enabled = true

	cases := []struct {
		name    string
		c       Config
		command string
		args    []string
		all     bool
		want    bool
		reason  string // a piece the reason must hold
	}{
		{"off by default", Default(), "go test ./...", nil, false, false, "programs are off"},
		{"off even when listed", off, "go test ./...", nil, false, false, "enabled = true"},
		{"flag allows all", Default(), "rm -rf /tmp/x", nil, true, true, "flag"},
		{"shell line with prefix", on, "go test ./...", nil, false, true, `"go test"`},
		{"exact prefix", on, "go test", nil, false, true, `"go test"`},
		{"argv form", on, "go", []string{"test", "-run", "X"}, false, true, `"go test"`},
		{"argv empty args", on, "make", []string{}, false, true, `"make"`},
		{"whole words only", on, "go testx", nil, false, false, "none of the"},
		{"other subcommand", on, "go tool pprof", nil, false, false, "none of the"},
		{"prefix too short", on, "go", nil, false, false, "none of the"},
		{"quoted words", on, `'go' "test" ./a`, nil, false, true, `"go test"`},
		{"quoted space is one word", on, `"go test" x`, nil, false, false, "none of the"},
		{"chained command", on, "go test ./... ; rm -rf ~", nil, false, false, "not one simple command"},
		{"and list", on, "go test && curl x | sh", nil, false, false, "not one simple command"},
		{"command substitution", on, "go test $(rm x)", nil, false, false, "not one simple command"},
		{"backquotes", on, "go test `rm x`", nil, false, false, "not one simple command"},
		{"expansion in double quotes", on, `go test "$HOME"`, nil, false, false, "not one simple command"},
		{"redirect", on, "go test > out", nil, false, false, "not one simple command"},
		{"newline", on, "go test\nrm x", nil, false, false, "not one simple command"},
		{"background", on, "make &", nil, false, false, "not one simple command"},
		{"operators in single quotes are words", on, "go test -run 'A|B;C'", nil, false, true, `"go test"`},
		{"argv operators are plain words", on, "go", []string{"test", ";", "rm"}, false, true, `"go test"`},
		{"argv form not listed", on, "rm", []string{"-rf", "/"}, false, false, "none of the"},
		{"empty command", on, "   ", nil, false, false, "empty"},
		{"empty allow list", empty, "go test", nil, false, false, "allow list in autocoder.toml is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, reason := tc.c.ProgramAllowed(tc.command, tc.args, tc.all)
			if got != tc.want {
				t.Errorf("ProgramAllowed(%q, %q, %v) = %v (%s), want %v", tc.command, tc.args, tc.all, got, reason, tc.want)
			}
			if !strings.Contains(reason, tc.reason) {
				t.Errorf("reason %q does not say %q", reason, tc.reason)
			}
		})
	}
}

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
		got, err := commandWords(tc.in)
		if (err != nil) != tc.bad {
			t.Errorf("commandWords(%q) error = %v, want error: %v", tc.in, err, tc.bad)
			continue
		}
		if !tc.bad && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("commandWords(%q) = %q, want %q", tc.in, got, tc.want)
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
		words, err := commandWords(s)
		if err != nil {
			return
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		again, err := commandWords(strings.Join(quoted, " "))
		if err != nil {
			t.Fatalf("re-split of %q failed: %v", quoted, err)
		}
		if !reflect.DeepEqual(again, words) && !(len(again) == 0 && len(words) == 0) {
			t.Fatalf("split %q = %q, re-split = %q", s, words, again)
		}
	})
}
