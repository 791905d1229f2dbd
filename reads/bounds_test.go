package reads

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/autocoder/autocoder/step"
)

// TestListingsAndSearchesAreBounded: a listing and a search of a large
// folder (fixtures a model asked about whole) stop at MaxEntries entries
// and MaxOutputBytes bytes, whole lines only, and say how many entries or
// matching lines they left out, and how to narrow the request in the
// words the dialect gave (step.Op.Narrow).
func TestListingsAndSearchesAreBounded(t *testing.T) {
	t.Parallel()
	many := fstest.MapFS{}
	for i := range 2000 {
		many[fmt.Sprintf("fixtures/case-%04d.txt", i)] = &fstest.MapFile{Data: []byte("TODO one\nTODO two\n")}
	}
	long := fstest.MapFS{}
	name := strings.Repeat("n", 150)
	for i := range 200 {
		long[fmt.Sprintf("fixtures/%s-%03d.txt", name, i)] = &fstest.MapFile{Data: []byte("TODO " + strings.Repeat("x", 300) + "\n")}
	}
	note := regexp.MustCompile(`\n\[(?:listing cut at|stopped after) (\d+) (?:entries|matching lines) \((\d+) bytes\): (\d+) more left out; (.+)\]\n$`)
	for _, c := range []struct {
		name  string
		fsys  fstest.MapFS
		op    step.Op
		total int // entries or matching lines there are
	}{
		{"many entries", many, step.Op{Kind: step.OpList, Path: "fixtures", Narrow: "list_files a subfolder"}, 2000},
		{"long names", long, step.Op{Kind: step.OpList, Path: "fixtures", Narrow: "list_files a subfolder"}, 200},
		{"many matches", many, step.Op{Kind: step.OpSearch, Path: "fixtures", Read: &step.ReadOptions{Query: "TODO", Limit: 100000}, Narrow: "search_files a narrower PATTERN"}, 4000},
		{"long lines", long, step.Op{Kind: step.OpSearch, Path: "fixtures", Read: &step.ReadOptions{Query: "TODO"}, Narrow: "search_files a narrower PATTERN"}, 200},
	} {
		out, err := run(c.fsys, c.op)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		m := note.FindStringSubmatch(out)
		if m == nil {
			t.Errorf("%s: no note of what was left out at the end:\n%s", c.name, out[max(0, len(out)-300):])
			continue
		}
		shown, _ := strconv.Atoi(m[1])
		size, _ := strconv.Atoi(m[2])
		left, _ := strconv.Atoi(m[3])
		body := out[:len(out)-len(m[0])+1]
		if len(body) > MaxOutputBytes || size != len(body) {
			t.Errorf("%s: %d bytes before the note (it says %d), more than %d", c.name, len(body), size, MaxOutputBytes)
		}
		if lines := strings.Count(body, "\n"); lines != shown || lines > MaxEntries && c.op.Kind == step.OpList {
			t.Errorf("%s: %d lines shown, the note says %d", c.name, lines, shown)
		}
		if shown+left != c.total {
			t.Errorf("%s: %d shown + %d left out, want %d in all", c.name, shown, left, c.total)
		}
		if m[4] != c.op.Narrow {
			t.Errorf("%s: narrowing advice %q, want the dialect's %q", c.name, m[4], c.op.Narrow)
		}
	}
}
