package reads

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/autocoder/autocoder/step"
)

// The stream readPart gives exactly what readFile gives, for every kind of
// part, on text with multi-byte runes, CRLF, no final newline, and none.
func TestReadPartIsReadFile(t *testing.T) {
	t.Parallel()
	texts := []string{"", "a", "a\n", "a\nb", "a\r\nb\r\n\r\n", "héllo wörld\n€uro\n\nlast", strings.Repeat("ab€\n", 40000)}
	var opts []step.ReadOptions
	for _, r := range []string{"head:0", "head:1", "head:3", "head:100000", "tail:0", "tail:1", "tail:5", "tail:100000",
		"0:0", "0:2", "2:7", "5:100000", "70000:70010", "159990:200000"} {
		for _, enc := range []string{"", "base64", "hex"} {
			opts = append(opts, step.ReadOptions{Range: r, Encoding: enc}, step.ReadOptions{Range: r, Encoding: enc, IncludeMeta: true})
		}
	}
	for _, l := range []int{1, 2, 3, 4, 39999, 40000, 40001} {
		opts = append(opts, step.ReadOptions{Line: l}, step.ReadOptions{Line: l, IncludeMeta: true})
	}
	for _, l := range []string{"1-1", "1-2", "2-3", "3-9", "39999-40005", "40001-40002"} {
		opts = append(opts, step.ReadOptions{Lines: l})
	}
	for _, text := range texts {
		fsys := fstest.MapFS{"f": {Data: []byte(text)}}
		info, err := fsys.Stat("f")
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range opts {
			want, werr := readFile(fsys, "f", &o, 1<<30)
			got, gerr := readPart(fsys, "f", info, &o, 1<<30)
			if got != want || (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Errorf("%d bytes, %+v:\nstream %.80q, %v\nwhole  %.80q, %v", len(text), o, got, gerr, want, werr)
			}
		}
	}
}

// Issue 18: reading 16 bytes of a 200 MB file, searching a folder that holds
// one, or diffing it cost about 226 MB. Each now stays within a budget set
// by the limit, not by the file: the file (sparse: it costs no disk) is
// over the limit, so it is streamed for a part, skipped by a search, and
// refused whole or in a diff from its size alone. Memory is measured as
// the bytes allocated (runtime.MemStats.TotalAlloc), which a GC does not
// hide; the test runs alone (no t.Parallel) so that no other test's
// allocations count.
func TestReadsOfAHugeFileStayInBudget(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "logs", "big.log")
	os.MkdirAll(filepath.Dir(big), 0o755)
	if err := os.WriteFile(big, []byte("hello, world\nsecond line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 200<<20); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "logs", "small.log"), []byte("hello again\n"), 0o644)
	fsys := os.DirFS(dir)
	const max = 1 << 20
	cases := []struct {
		op    step.Op
		check func(string, error) bool
	}{
		{step.Op{Kind: step.OpRead, Path: "logs/big.log", Read: &step.ReadOptions{Range: "head:16", Encoding: "hex"}},
			func(s string, err error) bool { return err == nil && s == "68656c6c6f2c20776f726c640a736563" }},
		{step.Op{Kind: step.OpRead, Path: "logs/big.log", Read: &step.ReadOptions{Range: "tail:4", Encoding: "hex", IncludeMeta: true}},
			func(s string, err error) bool {
				return err == nil && strings.Contains(s, "size: 209715200\n") && strings.HasSuffix(s, "---\n00000000")
			}},
		{step.Op{Kind: step.OpRead, Path: "logs/big.log", Read: &step.ReadOptions{Line: 1}},
			func(s string, err error) bool { var be *BinaryError; return errors.As(err, &be) }},
		{step.Op{Kind: step.OpRead, Path: "logs/big.log"},
			func(s string, err error) bool { return err != nil && strings.Contains(err.Error(), "over the limit") }},
		{step.Op{Kind: step.OpSearch, Path: "logs", Read: &step.ReadOptions{Query: "hello"}},
			func(s string, err error) bool {
				return err == nil && strings.HasPrefix(s, "logs/small.log:1: hello again\n") && strings.Contains(s, "over the limit") &&
					strings.Contains(s, "logs/big.log")
			}},
		{step.Op{Kind: step.OpDiff, Path: "logs/big.log", To: "logs/small.log"},
			func(s string, err error) bool { return err != nil && strings.Contains(err.Error(), "over the limit") }},
	}
	for _, c := range cases {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		out, err := Run(fsys, c.op, max)
		runtime.ReadMemStats(&after)
		if !c.check(out, err) {
			t.Errorf("%s %s %+v: %.200q, %v", c.op.Kind, c.op.Path, c.op.Read, out, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*max {
			t.Errorf("%s %s %+v: allocated %d bytes for a 200 MB file, over the budget of %d", c.op.Kind, c.op.Path, c.op.Read, alloc, 4*max)
		}
	}
}
