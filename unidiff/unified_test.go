package unidiff

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// applyUnified applies a unified diff written by Unified to from, so that a
// test can check the diff's meaning rather than its exact layout.
func applyUnified(from, diff string) (string, error) {
	if diff == "" {
		return from, nil
	}
	src := strings.SplitAfter(from, "\n")
	if src[len(src)-1] == "" {
		src = src[:len(src)-1]
	}
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", fmt.Errorf("no header")
	}
	var out []string
	next := 0 // next line of src to copy
	var last *string
	for _, l := range lines[2:] {
		switch {
		case l == "":
		case strings.HasPrefix(l, "@@ -"):
			f := strings.Fields(l)
			start, _, _ := strings.Cut(strings.TrimPrefix(f[1], "-"), ",")
			n, err := strconv.Atoi(start)
			if err != nil {
				return "", err
			}
			if strings.HasSuffix(f[1], ",0") {
				n++ // "-l,0" names the line before the hunk
			}
			for next < n-1 {
				out = append(out, src[next])
				next++
			}
			last = nil
		case l == "\\ No newline at end of file\n":
			if last == nil {
				return "", fmt.Errorf("stray no-newline marker")
			}
			*last = strings.TrimSuffix(*last, "\n")
		case l[0] == ' ' || l[0] == '-':
			body := l[1:]
			if next >= len(src) || strings.TrimSuffix(src[next], "\n") != strings.TrimSuffix(body, "\n") {
				return "", fmt.Errorf("context mismatch at line %d: %q", next+1, l)
			}
			if l[0] == ' ' {
				out = append(out, src[next])
				last = &out[len(out)-1]
			} else {
				last = new(string)
			}
			next++
		case l[0] == '+':
			out = append(out, l[1:])
			last = &out[len(out)-1]
		default:
			return "", fmt.Errorf("bad line %q", l)
		}
	}
	out = append(out, src[next:]...)
	return strings.Join(out, ""), nil
}

func TestUnifiedRoundTrip(t *testing.T) {
	cases := [][2]string{
		{"", "a\n"},
		{"a\n", ""},
		{"a", "a\n"},
		{"a\nb\nc\n", "a\nc\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n", "1\nx\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\ny\n15"},
		{"same\n", "same\n"},
		// Beyond maxMyers the changed region is replaced whole; it must
		// still apply, and keep the common head and tail as context.
		{strings.Repeat("a\n", 10) + strings.Repeat("x\n", 900) + "z\n", strings.Repeat("a\n", 10) + strings.Repeat("y\n", 900) + "z\n"},
	}
	for _, c := range cases {
		for _, ctx := range []int{0, 1, 3} {
			checkRoundTrip(t, c[0], c[1], ctx)
		}
	}
}

func checkRoundTrip(t *testing.T, from, to string, ctx int) {
	t.Helper()
	d := Unified("a/f", "b/f", from, to, ctx)
	got, err := applyUnified(from, d)
	if err != nil || got != to {
		t.Fatalf("diff of %q -> %q (context %d) does not apply: %v, got %q\n%s", from, to, ctx, err, got, d)
	}
}

// FuzzUnified checks that every diff applies back: from + diff == to.
func FuzzUnified(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", uint8(3))
	f.Add("x", "", uint8(0))
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n", "0\n1\n2\n3\n5\n6\n7\n8\n9", uint8(1))
	f.Fuzz(func(t *testing.T, from, to string, ctx uint8) {
		if len(from) > 400 || len(to) > 400 {
			return // Myers is quadratic in memory; large inputs only slow the fuzzer
		}
		checkRoundTrip(t, from, to, int(ctx%6))
	})
}
