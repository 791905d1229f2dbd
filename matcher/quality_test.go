package matcher

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// perturbation turns a file and one of its functions into what a model
// might send: the file it edits, the old and new texts, the identifier, and
// the file the edit should produce (nil when the edit must be refused).
type perturbation struct {
	name      string
	tolerable bool // must succeed; otherwise it must be refused
	make      func(file []byte, fn [2]int) (src []byte, e Edit, want []byte)
}

const marker = "// edited by TestQualityReport\n"

func splice(b []byte, s, e int, x []byte) []byte {
	return append(append(append([]byte{}, b[:s]...), x...), b[e:]...)
}

func mapLines(s string, f func(i int, l string) string) string {
	ls := strings.Split(s, "\n")
	for i := range ls {
		ls[i] = f(i, ls[i])
	}
	return strings.Join(ls, "\n")
}

var perturbations = []perturbation{
	{"exact", true, func(f []byte, fn [2]int) ([]byte, Edit, []byte) {
		old := string(f[fn[0]:fn[1]])
		return f, Edit{Old: old, New: marker + old}, splice(f, fn[0], fn[1], []byte(marker+old))
	}},
	{"trailing white space", true, func(f []byte, fn [2]int) ([]byte, Edit, []byte) {
		old := string(f[fn[0]:fn[1]])
		drift := mapLines(old, func(i int, l string) string {
			if i%2 == 0 {
				return l + " \t"
			}
			return l
		})
		return f, Edit{Old: drift, New: marker + old}, splice(f, fn[0], fn[1], []byte(marker+old))
	}},
	{"LF old, CRLF file", true, func(f []byte, fn [2]int) ([]byte, Edit, []byte) {
		old := string(f[fn[0]:fn[1]])
		crlf := func(b []byte) []byte { return bytes.ReplaceAll(b, nl, []byte("\r\n")) }
		return crlf(f), Edit{Old: old, New: marker + old}, crlf(splice(f, fn[0], fn[1], []byte(marker+old)))
	}},
	{"CRLF old, LF file", true, func(f []byte, fn [2]int) ([]byte, Edit, []byte) {
		old := string(f[fn[0]:fn[1]])
		c := strings.ReplaceAll(old, "\n", "\r\n")
		return f, Edit{Old: c, New: marker + c}, splice(f, fn[0], fn[1], []byte(marker+old))
	}},
	{"indented one tab deeper", true, func(f []byte, fn [2]int) ([]byte, Edit, []byte) {
		old := string(f[fn[0]:fn[1]])
		deeper := func(s string) string {
			return mapLines(s, func(_ int, l string) string {
				if strings.TrimSpace(l) == "" {
					return l
				}
				return "\t" + l
			})
		}
		return f, Edit{Old: deeper(old), New: deeper(marker + old)}, splice(f, fn[0], fn[1], []byte(marker+old))
	}},
	{"tabs written as 4 spaces", true, func(f []byte, fn [2]int) ([]byte, Edit, []byte) {
		old := string(f[fn[0]:fn[1]])
		return f, Edit{Old: tabsAs(old, "    "), New: tabsAs(marker+old, "    ")}, splice(f, fn[0], fn[1], []byte(marker+old))
	}},
	{"tabs written as 2 spaces", true, func(f []byte, fn [2]int) ([]byte, Edit, []byte) {
		old := string(f[fn[0]:fn[1]])
		return f, Edit{Old: tabsAs(old, "  "), New: tabsAs(marker+old, "  ")}, splice(f, fn[0], fn[1], []byte(marker+old))
	}},
	{"duplicated block, tabs as spaces", false, func(f []byte, fn [2]int) ([]byte, Edit, []byte) {
		old := string(f[fn[0]:fn[1]])
		dup := append(append(bytes.Clone(f), '\n'), old+"\n"...)
		return dup, Edit{Old: tabsAs(old, "    "), New: tabsAs(marker+old, "    ")}, nil
	}},
	{"blank lines at the edges", true, func(f []byte, fn [2]int) ([]byte, Edit, []byte) {
		old := string(f[fn[0]:fn[1]])
		return f, Edit{Old: "\n\n" + old + "\n\n", New: "\n\n" + marker + old + "\n\n"}, splice(f, fn[0], fn[1], []byte(marker+old))
	}},
	{"duplicated block", false, func(f []byte, fn [2]int) ([]byte, Edit, []byte) {
		old := string(f[fn[0]:fn[1]])
		dup := append(append(bytes.Clone(f), '\n'), old+"\n"...)
		return dup, Edit{Old: old, New: marker + old}, nil
	}},
	{"duplicated block + identifier", false, func(f []byte, fn [2]int) ([]byte, Edit, []byte) {
		old := string(f[fn[0]:fn[1]])
		name := funcName(old)
		dup := append(append(bytes.Clone(f), '\n'), old+"\n"...)
		return dup, Edit{Old: old, New: marker + old, Identifier: name}, nil
	}},
	{"typo", false, func(f []byte, fn [2]int) ([]byte, Edit, []byte) {
		old := string(f[fn[0]:fn[1]])
		return f, Edit{Old: typo(old), New: marker + old}, nil
	}},
}

// tabsAs writes the leading tabs of every line of s as level, the way a
// model that indents with spaces copies Go.
func tabsAs(s, level string) string {
	return mapLines(s, func(_ int, l string) string {
		t := strings.TrimLeft(l, "\t")
		return strings.Repeat(level, len(l)-len(t)) + t
	})
}

// funcName returns the name a "func" line defines (after a receiver).
func funcName(fn string) string {
	l := strings.TrimPrefix(fn[:strings.IndexByte(fn, '\n')], "func ")
	if strings.HasPrefix(l, "(") {
		l = strings.TrimSpace(l[strings.IndexByte(l, ')')+1:])
	}
	if i := strings.IndexAny(l, "([ "); i >= 0 {
		l = l[:i]
	}
	return l
}

// typo swaps two adjacent letters near the middle of the text, the way a
// model misremembers a name.
func typo(s string) string {
	b := []byte(s)
	for i := len(b) / 2; i+1 < len(b); i++ {
		if isLetter(b[i]) && isLetter(b[i+1]) && b[i] != b[i+1] {
			b[i], b[i+1] = b[i+1], b[i]
			return string(b)
		}
	}
	return s + "x"
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// TestQualityReport applies every perturbation to 200 functions from 40
// standard-library files and asserts: no edit ever lands in a wrong place;
// every tolerable perturbation succeeds; every typo is refused with a
// nearest region that covers the function.
func TestQualityReport(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the matcher on the whole corpus: slow; runs without -short")
	}
	const nFiles, perFile = 40, 5
	type cell struct{ ok, wrong, refused, goodHint int }
	stats := make([]cell, len(perturbations))
	files, cases := 0, 0
	for _, p := range corpusFiles(t) {
		if files == nFiles {
			break
		}
		f := readFile(t, p)
		if bytes.Contains(f, []byte("\r")) || CheckText(f) != nil {
			continue
		}
		var fns [][2]int
		for _, fn := range functions(f) {
			body := f[fn[0]:fn[1]]
			if bytes.Count(body, nl) >= 3 && countOverlapping(f, body) == 1 {
				fns = append(fns, fn)
			}
		}
		if len(fns) < perFile {
			continue
		}
		files++
		for k := 0; k < perFile; k++ {
			fn := fns[k*len(fns)/perFile]
			cases++
			for i, pt := range perturbations {
				src, e, want := pt.make(f, fn)
				out, _, err := Replace(src, e)
				st := &stats[i]
				switch {
				case err == nil && want != nil && bytes.Equal(out, want):
					st.ok++
				case err == nil:
					st.wrong++
					t.Errorf("%s: %s: %s applied in the wrong place or shape", p, funcName(e.Old+"\n"), pt.name)
				default:
					st.refused++
					var nm *NoMatchError
					if errors.As(err, &nm) && nm.Nearest != nil {
						fl := 1 + bytes.Count(f[:fn[0]], nl)
						ll := fl + bytes.Count(f[fn[0]:fn[1]], nl)
						if nm.Nearest.StartLine <= ll && nm.Nearest.EndLine >= fl {
							st.goodHint++
						} else {
							t.Logf("typo hint missed: %s lines %d-%d, nearest %d-%d", p, fl, ll, nm.Nearest.StartLine, nm.Nearest.EndLine)
						}
					}
					if pt.tolerable {
						t.Errorf("%s: %s: %s refused: %v", p, funcName(e.Old+"\n"), pt.name, err)
					}
				}
			}
		}
	}
	if cases != nFiles*perFile {
		t.Fatalf("corpus has %d cases, want %d", cases, nFiles*perFile)
	}
	t.Logf("%d functions from %d files under GOROOT/src", cases, files)
	t.Logf("%-34s %8s %8s %8s %10s", "perturbation", "applied", "wrong", "refused", "good hint")
	for i, pt := range perturbations {
		s := stats[i]
		t.Logf("%-34s %7.1f%% %7.1f%% %7.1f%% %9.1f%%", pt.name, pct(s.ok, cases), pct(s.wrong, cases), pct(s.refused, cases), pct(s.goodHint, cases))
		if pt.name == "typo" && s.goodHint != cases {
			t.Errorf("typo: %d of %d refusals point at the function", s.goodHint, cases)
		}
	}
}

func pct(n, d int) float64 { return 100 * float64(n) / float64(d) }
