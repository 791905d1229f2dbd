package protocol

import (
	"bytes"
	"github.com/autocoder/autocoder/internal/golden"
	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/step"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// corpus is the response corpus shared by every dialect.
const corpus = "../testdata/responses"

// TestCorpus parses every response of the corpus, of every dialect.
//
// The axon-* and mixed-* responses are this package's: their items are
// compared with <name>.golden.json (-update rewrites those after a
// deliberate change; read the diff). The acjson-* and mcp-* responses have
// golden files their own packages own and render; here each must give
// exactly the items its dialect's reader gives alone: detection adds and
// drops nothing in a single-dialect response.
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpus, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	owned := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		prefix, _, _ := strings.Cut(name, "-")
		own := prefix == "axon" || prefix == "mixed"
		var alone reader
		if !own {
			var ok bool
			if alone, ok = registered(prefix); !ok {
				// Another engineer's response whose reader is not
				// in dialects yet: its own package tests it.
				continue
			}
		} else {
			owned++
		}
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			items := Parse(text)
			checkItems(t, text, items)
			got := golden.Items(items)
			if !own {
				if want := golden.Items(alone.parse(fence.NewText(text))); !bytes.Equal(got, want) {
					t.Errorf("detection changed the items %s reads alone:\n%s", alone.name, golden.LineDiff(string(want), string(got)))
				}
				return
			}
			golden.Check(t, strings.TrimSuffix(f, ".md")+".golden.json", got)
		})
	}
	if owned < 14 {
		t.Errorf("%d axon-* and mixed-* responses, want at least 14", owned)
	}
}

// registered finds the reader of the dialect a corpus file prefix names.
func registered(prefix string) (reader, bool) {
	want := map[string]string{"acjson": "autocoder-json", "mcp": "mcp"}[prefix]
	for _, d := range dialects {
		if d.name == want {
			return d, true
		}
	}
	return reader{}, false
}

// fake is a dialect reader that returns fixed items.
func fake(items ...step.Item) reader {
	return reader{"fake", func(*fence.Text) []step.Item {
		out := make([]step.Item, len(items))
		for i, it := range items {
			if it.Step != nil {
				s := *it.Step
				it.Step = &s
			}
			out[i] = it
		}
		return out
	}}
}

func mkStep(id string, start, end int) step.Item {
	return step.Item{Step: &step.Step{ID: id, Dialect: "d"}, Start: start, End: end}
}

func TestMerge(t *testing.T) {
	saved := dialects
	defer func() { dialects = saved }()
	cases := []struct {
		name    string
		readers []reader
		want    []string // id@start of the kept items
		repairs int
	}{
		{"order by start", []reader{
			fake(mkStep("a1", 10, 20), mkStep("a2", 50, 60)),
			fake(mkStep("b1", 0, 5), mkStep("b2", 30, 40)),
		}, []string{"b1@0", "a1@10", "b2@30", "a2@50"}, 0},
		{"inner block dropped", []reader{
			fake(mkStep("a1", 10, 100)),
			fake(mkStep("b1", 20, 30), mkStep("b2", 100, 110)),
		}, []string{"a1@10", "b2@100"}, 0},
		{"first dialect wins a tie", []reader{
			fake(mkStep("a1", 10, 20)),
			fake(mkStep("b1", 10, 30)),
		}, []string{"a1@10"}, 0},
		{"dropped inside an error too", []reader{
			fake(step.Item{Err: &step.ParseError{Dialect: "d", Msg: "bad"}, Start: 0, End: 50}),
			fake(mkStep("b1", 49, 60)),
		}, []string{"error@0"}, 0},
		{"duplicate ids renamed", []reader{
			fake(mkStep("x", 0, 1), mkStep("x", 10, 11), mkStep("x-2", 20, 21)),
			fake(mkStep("x", 5, 6)),
		}, []string{"x@0", "x-2@5", "x-3@10", "x-2-2@20"}, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dialects = c.readers
			items := Parse(nil)
			var got []string
			repairs := 0
			for _, it := range items {
				if it.Err != nil {
					got = append(got, "error@"+strconv.Itoa(it.Start))
					continue
				}
				got = append(got, it.Step.ID+"@"+strconv.Itoa(it.Start))
				repairs += len(it.Step.Repairs)
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") || repairs != c.repairs {
				t.Errorf("got %v with %d repairs, want %v with %d", got, repairs, c.want, c.repairs)
			}
		})
	}
}

// checkItems asserts what every Parse result holds, whatever the dialects:
// items in order and disjoint, within the text, exactly one of Step and Err,
// positions inside their item whose line and column match their offsets,
// unique step IDs.
func checkItems(t *testing.T, text []byte, items []step.Item) {
	t.Helper()
	prev := 0
	ids := map[string]bool{}
	for i, it := range items {
		if it.Start < prev || it.End < it.Start || it.End > len(text) {
			t.Fatalf("item %d span [%d,%d) out of order or range (previous ends %d, text %d)", i, it.Start, it.End, prev, len(text))
		}
		prev = it.End
		if (it.Step == nil) == (it.Err == nil) {
			t.Fatalf("item %d: want exactly one of Step and Err: %+v", i, it)
		}
		var ps []step.Pos
		if it.Err != nil {
			ps = append(ps, it.Err.Pos)
		} else {
			s := it.Step
			if ids[s.ID] {
				t.Fatalf("item %d: duplicate id %s", i, s.ID)
			}
			ids[s.ID] = true
			ps = append(ps, s.Pos)
			for _, op := range s.Ops {
				ps = append(ps, op.Pos)
			}
		}
		for _, p := range ps {
			if p.Offset < it.Start || p.Offset > it.End || p.Offset > len(text) {
				t.Fatalf("item %d: position %+v outside the item [%d,%d)", i, p, it.Start, it.End)
			}
			line := 1 + bytes.Count(text[:p.Offset], []byte{'\n'})
			// Columns count characters, as tjson's do: a model or a person
			// counts the characters of a line, not its UTF-8 bytes.
			col := 1 + utf8.RuneCount(text[bytes.LastIndexByte(text[:p.Offset], '\n')+1:p.Offset])
			if line != p.Line || col != p.Col {
				t.Fatalf("item %d: position %+v, but offset %d is %d:%d", i, p, p.Offset, line, col)
			}
		}
	}
}

// FuzzParse checks detection's properties on any text, seeded with the
// corpus.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(corpus, "*.md"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("~~~~~act\nwrite_file\n~~~~~\n~~~~~\na\n~~~~~\n~~~~~\nb\n~~~~~\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		checkItems(t, text, Parse(text))
	})
}
