package matcher

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// corpusDirs are standard-library folders read for the quality report and
// the benchmarks: real Go code, the same on every machine with this Go.
var corpusDirs = []string{
	"bufio", "bytes", "strings", "strconv", "sort", "fmt", "errors", "flag", "path",
	"encoding/json", "encoding/csv", "encoding/base64", "net/url", "text/template",
	"text/tabwriter", "go/scanner", "go/token", "go/printer", "go/parser", "regexp",
	"regexp/syntax", "unicode/utf8", "html/template", "mime", "net/http", "net/textproto",
	"os", "io", "io/fs", "archive/tar", "archive/zip", "compress/flate", "compress/gzip",
	"container/list", "container/heap", "crypto/tls", "database/sql", "debug/elf",
	"image/png", "image/gif", "log/slog", "math/big", "net", "os/exec", "reflect",
	"runtime", "syscall", "time", "testing", "internal/poll", "go/types", "cmd/compile/internal/ssa",
}

// corpusFiles lists the non-test .go files of corpusDirs in a fixed order.
func corpusFiles(t testing.TB) []string {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	var out []string
	for _, d := range corpusDirs {
		ms, _ := filepath.Glob(filepath.Join(root, d, "*.go"))
		sort.Strings(ms)
		for _, m := range ms {
			if !strings.HasSuffix(m, "_test.go") {
				out = append(out, m)
			}
		}
	}
	if len(out) == 0 {
		t.Skip("no Go sources under GOROOT") // only on a stripped toolchain
	}
	return out
}

// functions returns the byte ranges of the top-level functions of src: from
// a line starting with "func " to the next line that is just "}".
func functions(src []byte) [][2]int {
	var out [][2]int
	start := -1
	for off := 0; off < len(src); {
		e := bytes.IndexByte(src[off:], '\n')
		if e < 0 {
			break
		}
		line := src[off : off+e]
		if bytes.HasPrefix(line, []byte("func ")) && start < 0 {
			start = off
		} else if start >= 0 && string(line) == "}" {
			out = append(out, [2]int{start, off + e})
			start = -1
		}
		off += e + 1
	}
	return out
}

func readFile(t testing.TB, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
