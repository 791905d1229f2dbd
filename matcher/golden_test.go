package matcher

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/autocoder/autocoder/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A golden case is three files under testdata/matcher: <case>.src is the file,
// <case>.edit a txtar archive whose comment may hold "identifier: NAME" and
// whose files "old" and "new" are the edit's texts with exactly one trailing
// newline removed (write an empty line to keep one), and <case>.out the
// expected output: the new file, or "error: <type>\n<message>\n" followed by
// the hint, or for an unchanged file "already applied\n".

const goldenDir = "../testdata/matcher"

type goldenCase struct {
	name string
	src  []byte
	edit Edit
}

func loadGolden(t testing.TB) []goldenCase {
	srcs, err := filepath.Glob(filepath.Join(goldenDir, "*.src"))
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no golden cases in %s: %v", goldenDir, err)
	}
	var out []goldenCase
	for _, s := range srcs {
		name := strings.TrimSuffix(filepath.Base(s), ".src")
		src, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(goldenDir, name+".edit"))
		if err != nil {
			t.Fatal(err)
		}
		comment, files := parseArchive(string(raw))
		e := Edit{}
		for _, l := range strings.Split(comment, "\n") {
			if v, ok := strings.CutPrefix(l, "identifier:"); ok {
				e.Identifier = strings.TrimSpace(v)
			}
		}
		for _, f := range files {
			v := strings.TrimSuffix(f[1], "\n")
			switch f[0] {
			case "old":
				e.Old = v
			case "new":
				e.New = v
			default:
				t.Fatalf("%s: unknown file %q in .edit", name, f[0])
			}
		}
		out = append(out, goldenCase{name, src, e})
	}
	return out
}

// parseArchive reads the txtar layout (a comment, then "-- name --" lines
// each starting a file). go-internal's txtar needs a module go.mod lacks.
func parseArchive(s string) (comment string, files [][2]string) {
	cur := -1
	for _, l := range strings.SplitAfter(s, "\n") {
		t := strings.TrimRight(l, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			files = append(files, [2]string{t[3 : len(t)-3], ""})
			cur++
			continue
		}
		if cur < 0 {
			comment += l
		} else {
			files[cur][1] += l
		}
	}
	return comment, files
}

func goldenResult(c goldenCase) []byte {
	src := bytes.Clone(c.src)
	out, r, err := Replace(src, c.edit)
	if !bytes.Equal(src, c.src) {
		return []byte("BUG: Replace modified its input\n")
	}
	if err != nil {
		var h interface{ Hint() string }
		hint := ""
		if errors.As(err, &h) {
			hint = h.Hint()
		}
		// The hint of a *NoMatchError ends with its diff.
		return []byte(fmt.Sprintf("error: %T\n%v\nhint: %s\n", err, err, hint))
	}
	if r.AlreadyApplied {
		if !bytes.Equal(out, c.src) {
			return []byte("BUG: already applied but the output differs\n")
		}
		return []byte("already applied\n")
	}
	return out
}

func TestGolden(t *testing.T) {
	for _, c := range loadGolden(t) {
		t.Run(c.name, func(t *testing.T) {
			got := goldenResult(c)
			golden.Check(t, filepath.Join(goldenDir, c.name+".out"), got)
		})
	}
}
