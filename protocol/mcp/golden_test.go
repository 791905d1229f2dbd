package mcp

import (
	"bytes"
	"encoding/json"
	"github.com/autocoder/autocoder/internal/golden"
	"github.com/autocoder/autocoder/step"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpus is the shared folder of responses; this package owns mcp-*.md.
const corpus = "../../testdata/responses"

// view is how a golden file shows an item: content as strings, the
// request record spelled out.
type view struct {
	Start int       `json:"start"`
	End   int       `json:"end"`
	Text  string    `json:"text"` // the item's text, so a reviewer sees what was read
	Step  *stepView `json:"step,omitempty"`
	Error *errView  `json:"error,omitempty"`
}

type stepView struct {
	ID       string         `json:"id"`
	Reason   string         `json:"reason"`
	Pos      step.Pos       `json:"pos"`
	Source   *Request       `json:"source"`
	Ops      []opView       `json:"ops,omitempty"`
	Programs []step.Program `json:"programs,omitempty"`
	Repairs  []step.Repair  `json:"repairs,omitempty"`
}

type opView struct {
	step.Op
	Content    *string `json:"content,omitempty"`
	HasContent bool    `json:"has_content,omitempty"`
}

type errView struct {
	step.ParseError
	Source *Request `json:"source"`
}

func render(text []byte, items []step.Item) []byte {
	views := []view{}
	for _, it := range items {
		v := view{Start: it.Start, End: it.End, Text: string(text[it.Start:it.End])}
		if s := it.Step; s != nil {
			sv := &stepView{ID: s.ID, Reason: s.Reason, Pos: s.Pos, Programs: s.Programs, Repairs: s.Repairs}
			sv.Source, _ = s.Source.(*Request)
			for _, op := range s.Ops {
				ov := opView{Op: op, HasContent: op.HasContent}
				if op.Content != nil || op.HasContent {
					c := string(op.Content)
					ov.Content = &c
				}
				ov.Op.Content = nil
				sv.Ops = append(sv.Ops, ov)
			}
			v.Step = sv
		}
		if e := it.Err; e != nil {
			ev := &errView{ParseError: *e}
			ev.Source, _ = e.Source.(*Request)
			v.Error = ev
		}
		views = append(views, v)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(views); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func TestCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpus, "mcp-*.md"))
	if err != nil || len(files) < 12 {
		t.Fatalf("want at least 12 corpus files, found %d (%v)", len(files), err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			text, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			items := Parse(text)
			checkItems(t, text, items)
			got := render(text, items)
			goldenPath := strings.TrimSuffix(f, ".md") + ".golden.json"
			golden.Check(t, goldenPath, got)
		})
	}
}

// checkItems asserts the properties every Parse result has: items in
// order and disjoint, inside the text, each exactly one of Step and Err,
// positions that agree with their offsets and lie inside the item.
func checkItems(t *testing.T, text []byte, items []step.Item) {
	t.Helper()
	d := newDoc(text)
	prev := 0
	for i, it := range items {
		if it.Start < prev || it.End <= it.Start || it.End > len(text) {
			t.Fatalf("item %d spans [%d,%d) after %d in %d bytes", i, it.Start, it.End, prev, len(text))
		}
		prev = it.End
		if (it.Step == nil) == (it.Err == nil) {
			t.Fatalf("item %d: want exactly one of Step and Err", i)
		}
		var positions []step.Pos
		if s := it.Step; s != nil {
			if s.Dialect != Dialect || s.Source == nil || s.ID == "" {
				t.Fatalf("item %d: step %+v lacks dialect, source or id", i, s)
			}
			if len(s.Ops)+len(s.Programs) == 0 {
				if m := s.Source.(*Request).Method; m != "initialize" && m != "tools/list" {
					t.Fatalf("item %d: a tools/call step with nothing to do", i)
				}
			}
			positions = append(positions, s.Pos)
			for _, op := range s.Ops {
				positions = append(positions, op.Pos)
			}
			for _, r := range s.Repairs {
				positions = append(positions, r.Pos)
			}
		} else {
			e := it.Err
			if e.Dialect != Dialect || e.Msg == "" {
				t.Fatalf("item %d: error %+v lacks dialect or message", i, e)
			}
			if r, ok := e.Source.(*Request); !ok || r.AppCode != CodeInvalidInput || len(r.ID) == 0 {
				t.Fatalf("item %d: error source %#v is not an INVALID_INPUT request record", i, e.Source)
			}
			positions = append(positions, e.Pos)
		}
		for _, p := range positions {
			if p != d.pos(p.Offset) {
				t.Fatalf("item %d: position %+v does not match its offset (%+v)", i, p, d.pos(p.Offset))
			}
			if p.Offset < it.Start || p.Offset > it.End {
				t.Fatalf("item %d: position %+v outside [%d,%d)", i, p, it.Start, it.End)
			}
		}
	}
}
