package matcher

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// bigFile concatenates distinct standard-library files up to size bytes and
// picks 100 multi-line functions that occur exactly once, spread over it.
func bigFile(b *testing.B, size int) ([]byte, []Edit) {
	var f []byte
	for _, p := range corpusFiles(b) {
		if len(f) >= size {
			break
		}
		src := readFile(b, p)
		if CheckText(src) == nil && !bytes.Contains(src, []byte("\r")) {
			f = append(f, src...)
		}
	}
	if len(f) < size {
		b.Skipf("only %d bytes of sources", len(f))
	}
	f = f[:bytes.LastIndexByte(f[:size], '\n')+1]
	fns := functions(f)
	var edits []Edit
	for i := 0; i < len(fns) && len(edits) < 100; i += max(1, len(fns)/150) {
		old := f[fns[i][0]:fns[i][1]]
		if bytes.Count(old, nl) >= 3 && countOverlapping(f, old) == 1 {
			edits = append(edits, Edit{Old: string(old), New: "// changed\n" + string(old)})
		}
	}
	if len(edits) < 100 {
		b.Fatalf("only %d unique functions", len(edits))
	}
	return f, edits
}

// BenchmarkReplace10MB applies 100 edits with one ReplaceAll call (one op
// is all 100); the 1MB size shows how the cost grows with the file.
func BenchmarkReplace10MB(b *testing.B) {
	for _, size := range []int{1 << 20, 10 << 20} {
		f, edits := bigFile(b, size)
		b.Run(fmt.Sprintf("size=%dMB/edits=100", size>>20), func(b *testing.B) {
			b.SetBytes(int64(len(f)))
			for b.Loop() {
				if _, _, err := ReplaceAll(f, edits); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNoMatch10MB measures a failed edit, nearest-region search
// included, for a multi-line typo and a one-line typo.
func BenchmarkNoMatch(b *testing.B) {
	for _, size := range []int{1 << 20, 10 << 20} {
		f, edits := bigFile(b, size)
		for _, c := range []struct{ name, old string }{
			{"multiline", typo(edits[50].Old)},
			{"oneline", typo(edits[50].Old[:bytes.IndexByte([]byte(edits[50].Old), '\n')])},
		} {
			b.Run(fmt.Sprintf("size=%dMB/%s", size>>20, c.name), func(b *testing.B) {
				for b.Loop() {
					if _, _, err := Replace(f, Edit{Old: c.old, New: "x"}); err == nil {
						b.Fatal("typo matched")
					}
				}
			})
		}
	}
}

// BenchmarkNearMissRepetitive measures issue 18's near miss: an old text
// a little off from every line of a repetitive file, at 40, 400 and 4000
// lines (linear: each step 10×).
func BenchmarkNearMissRepetitive(b *testing.B) {
	for _, n := range []int{40, 400, 4000} {
		file, old := nearMissRepetitive(n)
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(file)))
			for b.Loop() {
				if _, _, err := Replace(file, Edit{Old: old, New: "x"}); err == nil {
					b.Fatal("the near miss matched")
				}
			}
		})
	}
}

// nearMissRepetitive is issue 18's slow case: a file of n alike lines and an
// old text that nearly matches all of them (every line a little off), so
// the nearest-region search aligns n lines with n lines, each pair alike.
func nearMissRepetitive(n int) (file []byte, old string) {
	var f, o strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&f, "\tvalue := compute(alpha, beta, gamma) + %d // keep it\n", i%7)
		fmt.Fprintf(&o, "\tvalue := compute(alpha, beta, gamma) + %d // keep it!\n", i%7)
	}
	return []byte(f.String()), o.String()
}
