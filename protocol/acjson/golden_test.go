package acjson

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The golden view of items, the same as protocol's TestCorpus renders them
// (the two tests share the corpus files): txn's JSON, with an op's content
// shown as text rather than as encoding/json's base64 of a []byte. The
// shallower Content field hides the embedded one.
type opView struct {
	step.Op
	Content *string `json:"content,omitempty"`
}

type stepView struct {
	*step.Step
	Ops []opView `json:"ops,omitempty"`
}

type itemView struct {
	Start int              `json:"start"`
	End   int              `json:"end"`
	Step  *stepView        `json:"step,omitempty"`
	Err   *step.ParseError `json:"error,omitempty"`
}

func render(t *testing.T, items []step.Item) []byte {
	views := []itemView{}
	for _, it := range items {
		v := itemView{Start: it.Start, End: it.End, Err: it.Err}
		if it.Step != nil {
			v.Step = &stepView{Step: it.Step}
			for _, op := range it.Step.Ops {
				ov := opView{Op: op}
				if op.Content != nil || op.HasContent {
					c := string(op.Content)
					ov.Content = &c
				}
				v.Step.Ops = append(v.Step.Ops, ov)
			}
		}
		views = append(views, v)
	}
	out, err := json.MarshalIndent(views, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// golden compares got with the file want, or rewrites it under -update.
func golden(t *testing.T, want string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(want, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(w, got) {
		t.Errorf("%s differs from the output (go test -update rewrites it):\n%s", want, lineDiff(string(w), string(got)))
	}
}

// lineDiff shows the first lines where two texts differ.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out strings.Builder
	shown := 0
	for i := 0; i < max(len(al), len(bl)) && shown < 10; i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			fmt.Fprintf(&out, "line %d:\n- %s\n+ %s\n", i+1, x, y)
			shown++
		}
	}
	return out.String()
}

func corpus(t testing.TB) []string {
	files, err := filepath.Glob("../../testdata/responses/acjson-*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 16 {
		t.Fatalf("found %d corpus files, want at least 16", len(files))
	}
	return files
}

// TestGolden reads every acjson-*.md of the response corpus and compares the
// items with <name>.golden.json.
func TestGolden(t *testing.T) {
	for _, name := range corpus(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			items := Parse(data)
			checkItems(t, data, items)
			golden(t, strings.TrimSuffix(name, ".md")+".golden.json", render(t, items))
		})
	}
}
