package shellwords

import (
	"errors"
	"reflect"
	"testing"

	"github.com/autocoder/autocoder/step"
)

func TestSimpleWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"go test ./...", []string{"go", "test", "./..."}},
		{`pytest -k "a or b" 'x y'`, []string{"pytest", "-k", "a or b", "x y"}},
		{`echo a\ b "\$HOME" '*.go' "~"`, []string{"echo", "a b", "$HOME", "*.go", "~"}},
		{"echo a\\*b", []string{"echo", "a*b"}},
		{"  make  ", []string{"make"}},
		{"echo x#y", []string{"echo", "x#y"}},
	} {
		got, err := Simple(c.in)
		if err != nil {
			t.Errorf("Simple(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Simple(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSimpleRefusesWhatTheShellDecides(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind Kind
		col  int
	}{
		{"go test; rm -rf .", KindList, 10},
		{"make && make install", KindList, 6},
		{"make\nrm x", KindList, 1},
		{"cat a | sh", KindPipeline, 7},
		{"sleep 9 &", KindBackground, 9},
		{"echo hi > f", KindRedirect, 9},
		{"(cd x; make)", KindCompound, 1},
		{"if true; then x; fi", KindCompound, 1},
		{"CGO_ENABLED=0 go build", KindAssign, 1},
		{"echo $HOME", KindExpansion, 6},
		{"echo ${HOME}", KindExpansion, 6},
		{"echo $(id)", KindExpansion, 6},
		{"echo `id`", KindExpansion, 6},
		{`echo "$(id)"`, KindExpansion, 7},
		{"echo $((1+2))", KindExpansion, 6},
		{"echo $'\\x41'", KindExpansion, 6},
		{"ls *.go", KindGlob, 4},
		{"ls a?.go", KindGlob, 5},
		{"ls [ab].go", KindGlob, 4},
		{"cat ~/.ssh/id_rsa", KindTilde, 5},
		{"echo {a,b}", KindBrace, 6},
		{"make # all", KindComment, 6},
		{"# nothing", KindComment, 1},
		{"echo 'open", KindSyntax, 6},
		{"", KindEmpty, 1},
		{"é; x", KindList, 4},
	} {
		_, err := Simple(c.in)
		var ns *NotSimpleError
		if !errors.As(err, &ns) {
			t.Errorf("Simple(%q): err = %v, want *NotSimpleError", c.in, err)
			continue
		}
		if ns.Kind != c.kind || ns.Line != 1 && c.kind != KindList || ns.Col != c.col {
			t.Errorf("Simple(%q): %s at %d:%d (%q), want %s at column %d", c.in, ns.Kind, ns.Line, ns.Col, ns.Text, c.kind, c.col)
		}
		if step.ClassOf(err) != step.ClassRefused || step.HintOf(err) == "" {
			t.Errorf("Simple(%q): class %v hint %q", c.in, step.ClassOf(err), step.HintOf(err))
		}
	}
}

func FuzzSimple(f *testing.F) {
	for _, s := range []string{"go test ./...", "a;b", "echo $X *", "'a b' \"c\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := Simple(s)
		if err != nil {
			var ns *NotSimpleError
			if !errors.As(err, &ns) {
				t.Fatalf("Simple(%q): %T %v", s, err, err)
			}
			return
		}
		if len(words) == 0 {
			t.Fatalf("Simple(%q): no words and no error", s)
		}
	})
}
