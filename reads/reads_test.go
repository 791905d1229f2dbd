package reads

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode"
)

var mtime = time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)

func testFS() fstest.MapFS {
	return fstest.MapFS{
		"README.md":           {Data: []byte("# Title\nhello world\n中文行\nlast line\n"), ModTime: mtime},
		"crlf.txt":            {Data: []byte("one\r\ntwo\r\nthree\r\n")},
		"noeol.txt":           {Data: []byte("a\nb")},
		"empty.txt":           {Data: []byte("")},
		"bin.dat":             {Data: []byte("ab\x00cd")},
		"src/main.go":         {Data: []byte("package main\n\n// TODO: one\nfunc main() {}\n// TODO: two\n"), ModTime: mtime},
		"src/util/util.go":    {Data: []byte("package util\n// todo lower\n"), ModTime: mtime.Add(-48 * time.Hour)},
		"src/util/util.ts":    {Data: []byte("// TODO: ts\n")},
		"src/big.go":          {Data: []byte(strings.Repeat("x", 2000) + " TODO\n")},
		".git/config":         {Data: []byte("TODO in git\n")},
		"sub/.GIT/HEAD":       {Data: []byte("TODO in odd-case git\n")},
		"sub/z.txt":           {Data: []byte("TODO z\n")},
		"docs/a.md":           {Data: []byte("TODO a\n")},
		"docs/deep/er/b.md":   {Data: []byte("TODO b\n")},
		"docs/deep/er/bin.md": {Data: []byte("TODO\x00b\n")},
	}
}

func read(o step.ReadOptions) step.Op { return step.Op{Kind: step.OpRead, Read: &o} }

func TestRead(t *testing.T) {
	cases := []struct {
		name string
		path string
		o    step.ReadOptions
		want string
	}{
		{"whole", "README.md", step.ReadOptions{}, "# Title\nhello world\n中文行\nlast line\n"},
		{"head runes", "README.md", step.ReadOptions{Range: "head:3"}, "# T"},
		{"head past end", "noeol.txt", step.ReadOptions{Range: "head:99"}, "a\nb"},
		{"tail counts runes not bytes", "README.md", step.ReadOptions{Range: "tail:14"}, "中文行\nlast line\n"},
		{"slice runes", "README.md", step.ReadOptions{Range: "20:23"}, "中文行"},
		{"slice clamps", "noeol.txt", step.ReadOptions{Range: "2:50"}, "b"},
		{"empty slice", "noeol.txt", step.ReadOptions{Range: "1:1"}, ""},
		{"line", "README.md", step.ReadOptions{Line: 3}, "中文行"},
		{"line crlf", "crlf.txt", step.ReadOptions{Line: 2}, "two"},
		{"line without newline", "noeol.txt", step.ReadOptions{Line: 2}, "b"},
		{"lines", "README.md", step.ReadOptions{Lines: "2-3"}, "hello world\n中文行"},
		{"lines crlf keeps inner newlines", "crlf.txt", step.ReadOptions{Lines: "1-2"}, "one\r\ntwo"},
		{"lines end clamps", "README.md", step.ReadOptions{Lines: "4-9"}, "last line"},
		{"base64", "bin.dat", step.ReadOptions{Encoding: "base64"}, "YWIAY2Q="},
		{"hex", "bin.dat", step.ReadOptions{Encoding: "hex"}, "6162006364"},
		{"hex range counts bytes", "README.md", step.ReadOptions{Encoding: "hex", Range: "tail:2"}, "650a"},
		{"explicit utf-8", "empty.txt", step.ReadOptions{Encoding: "utf-8"}, ""},
		{"meta", "noeol.txt", step.ReadOptions{IncludeMeta: true, Line: 1},
			"path: noeol.txt\nsize: 3\nsha256: 3dad8f1d2b4c2f6e59f2c0d0c6c5c51a5f3f5b7a2f6a0a1a8d1f5f8e0b3b9c8b\nlines: 2\n---\na"},
		{"meta with mtime", "src/util/util.ts", step.ReadOptions{IncludeMeta: true},
			"path: src/util/util.ts\nsize: 12\nsha256: SUM\nlines: 1\n---\n// TODO: ts\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			op := read(c.o)
			op.Path = c.path
			got, err := run(testFS(), op)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(c.want, "sha256: ") {
				// The hash is checked against crypto/sha256 in TestReadMetaHash;
				// here only the layout matters.
				got = maskHash(got)
				c.want = maskHash(c.want)
			}
			if got != c.want {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

func maskHash(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "sha256: ") {
			lines[i] = "sha256: SUM"
		}
	}
	return strings.Join(lines, "\n")
}

func TestReadMetaHashAndMtime(t *testing.T) {
	fsys := testFS()
	op := read(step.ReadOptions{IncludeMeta: true, Lines: "1-1"})
	op.Path = "src/main.go"
	got := mustRun(t, fsys, op)
	data := fsys["src/main.go"].Data
	want := fmt.Sprintf("path: src/main.go\nsize: %d\nsha256: %x\nlines: 5\nmtime: 2024-05-01T10:00:00Z\n---\npackage main", len(data), sha256.Sum256(data))
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestReadErrors(t *testing.T) {
	cases := []struct {
		name   string
		path   string
		o      step.ReadOptions
		option string // "" for not found, "binary" for BinaryError
	}{
		{"missing", "nope.txt", step.ReadOptions{}, ""},
		{"missing dir", "nope/x.txt", step.ReadOptions{}, ""},
		{"binary as text", "bin.dat", step.ReadOptions{}, "binary"},
		{"binary line", "bin.dat", step.ReadOptions{Line: 1}, "binary"},
		{"directory", "src", step.ReadOptions{}, "path"},
		{"range and line", "README.md", step.ReadOptions{Range: "head:1", Line: 1}, "range/line"},
		{"line and lines", "README.md", step.ReadOptions{Line: 1, Lines: "1-2"}, "line/lines"},
		{"base64 with lines", "README.md", step.ReadOptions{Encoding: "base64", Lines: "1-2"}, "encoding"},
		{"hex with line", "README.md", step.ReadOptions{Encoding: "hex", Line: 2}, "encoding"},
		{"bad encoding", "README.md", step.ReadOptions{Encoding: "latin1"}, "encoding"},
		{"range no colon", "README.md", step.ReadOptions{Range: "head"}, "range"},
		{"range bad N", "README.md", step.ReadOptions{Range: "head:x"}, "range"},
		{"range negative", "README.md", step.ReadOptions{Range: "tail:-1"}, "range"},
		{"range reversed", "README.md", step.ReadOptions{Range: "5:2"}, "range"},
		{"range unknown word", "README.md", step.ReadOptions{Range: "first:2"}, "range"},
		{"lines reversed", "README.md", step.ReadOptions{Lines: "3-2"}, "lines"},
		{"lines zero", "README.md", step.ReadOptions{Lines: "0-2"}, "lines"},
		{"lines junk", "README.md", step.ReadOptions{Lines: "a-b"}, "lines"},
		{"line past end", "README.md", step.ReadOptions{Line: 5}, "line"},
		{"lines past end", "README.md", step.ReadOptions{Lines: "9-10"}, "lines"},
		{"line of empty file", "empty.txt", step.ReadOptions{Line: 1}, "line"},
		{"negative line", "README.md", step.ReadOptions{Line: -1}, "line"},
		{"unclean path", "../x", step.ReadOptions{}, "path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			op := read(c.o)
			op.Path = c.path
			got, err := run(testFS(), op)
			if err == nil {
				t.Fatalf("no error, output %q", got)
			}
			checkErr(t, err, c.option)
		})
	}
}

// checkErr asserts the class of err: "" not found, "binary", or the
// option an *step.OptionError names. Every error must carry a hint or name
// what to fix.
func checkErr(t *testing.T, err error, option string) {
	t.Helper()
	var nf *NotFoundError
	var be *BinaryError
	var oe *step.OptionError
	switch {
	case option == "":
		if !errors.As(err, &nf) || !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("want NotFoundError wrapping fs.ErrNotExist, got %T %v", err, err)
		}
	case option == "binary":
		if !errors.As(err, &be) {
			t.Fatalf("want BinaryError, got %T %v", err, err)
		}
	default:
		if !errors.As(err, &oe) || oe.Option != option {
			t.Fatalf("want step.OptionError on %q, got %T %v", option, err, err)
		}
	}
	if msg := err.Error(); msg == "" || unicode.IsUpper([]rune(msg)[0]) {
		t.Errorf("error should start lower case: %q", msg)
	}
	if option == "" || option == "binary" || option == "range" || option == "lines" || option == "encoding" {
		if step.HintOf(err) == "" {
			t.Errorf("no hint for %v", err)
		}
	}
}

func TestList(t *testing.T) {
	cases := []struct {
		name string
		path string
		o    step.ReadOptions
		want string
	}{
		{"root one level", "", step.ReadOptions{Depth: 1},
			"README.md\nbin.dat\ncrlf.txt\ndocs/\nempty.txt\nnoeol.txt\nsrc/\nsub/\n"},
		{"dot is root", ".", step.ReadOptions{Depth: 1, Glob: "*.txt"}, "crlf.txt\nempty.txt\nnoeol.txt\n"},
		{"unlimited", "docs", step.ReadOptions{},
			"docs/a.md\ndocs/deep/\ndocs/deep/er/\ndocs/deep/er/b.md\ndocs/deep/er/bin.md\n"},
		{"depth 2", "docs", step.ReadOptions{Depth: 2}, "docs/a.md\ndocs/deep/\ndocs/deep/er/\n"},
		{"glob descends into unmatched dirs", "docs", step.ReadOptions{Glob: "b.md"}, "docs/deep/er/b.md\n"},
		{"double star glob", "src", step.ReadOptions{Glob: "**/*.go"}, "src/big.go\nsrc/main.go\nsrc/util/util.go\n"},
		{"glob with dir", "src", step.ReadOptions{Glob: "util/*.ts"}, "src/util/util.ts\n"},
		{"double star glob with dir", "", step.ReadOptions{Glob: "**/util/*.ts"}, "src/util/util.ts\n"},
		{"skips .git any case", "sub", step.ReadOptions{}, "sub/z.txt\n"},
		{"a file lists itself", "src/main.go", step.ReadOptions{}, "src/main.go\n"},
		{"limit", "docs", step.ReadOptions{Limit: 2},
			"docs/a.md\ndocs/deep/\n[listing cut at 2 entries (21 bytes): 3 more left out; list a subdirectory or use glob]\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := run(testFS(), step.Op{Kind: step.OpList, Path: c.path, Read: &c.o})
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
	if strings.Contains(mustRun(t, testFS(), step.Op{Kind: step.OpList}), ".git") {
		t.Error("an unlimited listing shows .git")
	}
	for _, c := range []struct {
		o      step.ReadOptions
		path   string
		option string
	}{
		{step.ReadOptions{Depth: -1}, "", "depth"},
		{step.ReadOptions{Glob: "[a-"}, "", "glob"},
		{step.ReadOptions{Limit: -2}, "", "limit"},
		{step.ReadOptions{}, "nope", ""},
	} {
		_, err := run(testFS(), step.Op{Kind: step.OpList, Path: c.path, Read: &c.o})
		checkErr(t, err, c.option)
	}
}

func mustRun(t *testing.T, fsys fs.FS, op step.Op) string {
	t.Helper()
	out, err := run(fsys, op)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSearch(t *testing.T) {
	long := "src/big.go:1: " + strings.Repeat("x", maxShownLine) + " …\n"
	cases := []struct {
		name string
		path string
		o    step.ReadOptions
		want string
	}{
		{"substring, case-sensitive, skips .git and binary", "", step.ReadOptions{Query: "TODO"},
			"docs/a.md:1: TODO a\ndocs/deep/er/b.md:1: TODO b\n" + long +
				"src/main.go:3: // TODO: one\nsrc/main.go:5: // TODO: two\nsrc/util/util.ts:1: // TODO: ts\nsub/z.txt:1: TODO z\n"},
		{"regex", "src", step.ReadOptions{Query: `(?i)todo:? (one|lower)`, Regex: true},
			"src/main.go:3: // TODO: one\nsrc/util/util.go:2: // todo lower\n"},
		{"regex characters are literal without regex", "src", step.ReadOptions{Query: "TODO: (one"}, ""},
		{"context merges groups", "src/main.go", step.ReadOptions{Query: "TODO", ContextLines: 1},
			"src/main.go-2- \nsrc/main.go:3: // TODO: one\nsrc/main.go-4- func main() {}\nsrc/main.go:5: // TODO: two\n"},
		{"context separates files", "docs", step.ReadOptions{Query: "TODO", ContextLines: 2},
			"docs/a.md:1: TODO a\n--\ndocs/deep/er/b.md:1: TODO b\n"},
		{"limit", "", step.ReadOptions{Query: "TODO", Limit: 2},
			"docs/a.md:1: TODO a\ndocs/deep/er/b.md:1: TODO b\n[stopped after 2 matching lines (48 bytes): 5 more left out; narrow path, glob or query, or raise limit]\n"},
		{"limit exactly reached is not cut", "src/main.go", step.ReadOptions{Query: "TODO", Limit: 2},
			"src/main.go:3: // TODO: one\nsrc/main.go:5: // TODO: two\n"},
		{"glob", "", step.ReadOptions{Query: "TODO", Glob: "**/*.ts"}, "src/util/util.ts:1: // TODO: ts\n"},
		{"extensions either form", "", step.ReadOptions{Query: "TODO", Extensions: []string{"TS", ".txt"}},
			"src/util/util.ts:1: // TODO: ts\nsub/z.txt:1: TODO z\n"},
		{"size bounds", "", step.ReadOptions{Query: "TODO", MinBytes: 8, MaxBytes: 12},
			"src/util/util.ts:1: // TODO: ts\n"},
		{"mtime date range", "src", step.ReadOptions{Query: "o", MtimeFrom: "2024-04-30", MtimeTo: "2024-05-01"},
			"src/main.go:3: // TODO: one\nsrc/main.go:5: // TODO: two\n"},
		{"mtime to excludes newer", "src", step.ReadOptions{Query: "lower", MtimeTo: "2024-04-29T23:59:59Z"},
			"src/util/util.go:2: // todo lower\n"},
		{"no match", "", step.ReadOptions{Query: "absent text"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := run(testFS(), step.Op{Kind: step.OpSearch, Path: c.path, Read: &c.o})
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
	for _, c := range []struct {
		o      step.ReadOptions
		path   string
		option string
	}{
		{step.ReadOptions{}, "", "query"},
		{step.ReadOptions{Query: "(", Regex: true}, "", "query"},
		{step.ReadOptions{Query: "x", Limit: -1}, "", "limit"},
		{step.ReadOptions{Query: "x", ContextLines: -1}, "", "contextLines"},
		{step.ReadOptions{Query: "x", MinBytes: 10, MaxBytes: 5}, "", "minBytes"},
		{step.ReadOptions{Query: "x", MtimeFrom: "yesterday"}, "", "mtimeFrom"},
		{step.ReadOptions{Query: "x", MtimeTo: "2024-13-01"}, "", "mtimeTo"},
		{step.ReadOptions{Query: "x", Extensions: []string{"."}}, "", "extensions"},
		{step.ReadOptions{Query: "x", Glob: "[z"}, "", "glob"},
		{step.ReadOptions{Query: "x"}, "nowhere", ""},
	} {
		_, err := run(testFS(), step.Op{Kind: step.OpSearch, Path: c.path, Read: &c.o})
		checkErr(t, err, c.option)
	}
}

func TestDiff(t *testing.T) {
	fsys := fstest.MapFS{
		"old.txt": {Data: []byte("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n")},
		"new.txt": {Data: []byte("a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\n")},
		"bin":     {Data: []byte{0, 1}},
		"dir/x":   {Data: []byte("x")},
	}
	got := mustRun(t, fsys, step.Op{Kind: step.OpDiff, Path: "old.txt", To: "new.txt"})
	want := "--- a/old.txt\n+++ b/new.txt\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n@@ -8,3 +8,4 @@\n h\n i\n j\n+k\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got = mustRun(t, fsys, step.Op{Kind: step.OpDiff, Path: "old.txt", To: "new.txt", Read: &step.ReadOptions{ContextLines: 5}})
	if !strings.HasPrefix(got, "--- a/old.txt\n+++ b/new.txt\n@@ -1,10 +1,11 @@\n a\n-b\n+B\n") {
		t.Errorf("context 5 should merge the hunks:\n%s", got)
	}
	got = mustRun(t, fsys, step.Op{Kind: step.OpDiff, Path: "old.txt", Content: []byte("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"), HasContent: true})
	if got != "" {
		t.Errorf("equal texts should give no diff, got %q", got)
	}
	got = mustRun(t, fsys, step.Op{Kind: step.OpDiff, Path: "dir/x", Content: []byte{}, HasContent: true})
	if want := "--- a/dir/x\n+++ b/dir/x\n@@ -1 +0,0 @@\n-x\n\\ No newline at end of file\n"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	for _, c := range []struct {
		op     step.Op
		option string
	}{
		{step.Op{Kind: step.OpDiff, Path: "old.txt"}, "to"},
		{step.Op{Kind: step.OpDiff, Path: "old.txt", To: "new.txt", HasContent: true}, "to"},
		{step.Op{Kind: step.OpDiff, Path: "missing", To: "new.txt"}, ""},
		{step.Op{Kind: step.OpDiff, Path: "old.txt", To: "missing"}, ""},
		{step.Op{Kind: step.OpDiff, Path: "old.txt", To: "bin"}, "binary"},
		{step.Op{Kind: step.OpDiff, Path: "dir", To: "old.txt"}, "path"},
		{step.Op{Kind: step.OpDiff, Path: "old.txt", To: "new.txt", Read: &step.ReadOptions{ContextLines: -1}}, "contextLines"},
	} {
		_, err := run(fsys, c.op)
		checkErr(t, err, c.option)
	}
}

func TestNotAReadKind(t *testing.T) {
	_, err := run(testFS(), step.Op{Kind: step.OpWrite, Path: "README.md"})
	checkErr(t, err, "kind")
}

// TestOSDir runs the reads on a real directory, where mtimes exist and
// the walk goes through os.DirFS.
func TestOSDir(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"a/b.txt": "needle\n", "a/.git/x": "needle\n", "c.txt": "hay\n"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fsys := os.DirFS(dir)
	if got := mustRun(t, fsys, step.Op{Kind: step.OpList}); got != "a/\na/b.txt\nc.txt\n" {
		t.Errorf("list: %q", got)
	}
	if got := mustRun(t, fsys, step.Op{Kind: step.OpSearch, Read: &step.ReadOptions{Query: "needle"}}); got != "a/b.txt:1: needle\n" {
		t.Errorf("search: %q", got)
	}
	got := mustRun(t, fsys, step.Op{Kind: step.OpRead, Path: "c.txt", Read: &step.ReadOptions{IncludeMeta: true}})
	if !strings.Contains(got, fmt.Sprintf("sha256: %x\n", sha256.Sum256([]byte("hay\n")))) ||
		!strings.Contains(got, "\nmtime: 20") || !strings.HasSuffix(got, "---\nhay\n") {
		t.Errorf("meta: %q", got)
	}
}

// A named pipe, a device or a socket is refused, not read: reading a pipe
// nobody writes to waits forever (autocoder hung there, deaf to SIGTERM),
// and a device may never end. The search skips them already.
func TestReadRefusesWhatIsNotAFile(t *testing.T) {
	fsys := fstest.MapFS{
		"pipe":  {Mode: fs.ModeNamedPipe, Data: []byte("would block\n")},
		"dev":   {Mode: fs.ModeDevice | fs.ModeCharDevice, Data: []byte("endless\n")},
		"a.txt": {Data: []byte("a\n")},
	}
	for _, name := range []string{"pipe", "dev"} {
		for _, op := range []step.Op{
			{Kind: step.OpRead, Path: name},
			{Kind: step.OpDiff, Path: name, To: "a.txt"},
			{Kind: step.OpDiff, Path: "a.txt", To: name},
		} {
			out, err := run(fsys, op)
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s %s: %q, %v; want it refused as not a regular file", op.Kind, name, out, err)
			}
		}
	}
}

// run is Run with the default limit.
func run(fsys fs.FS, op step.Op) (string, error) { return Run(fsys, op, 0) }
