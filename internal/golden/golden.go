// Package golden is the project's golden-file testing: one -update flag for
// every package, one comparison that shows where the texts part, and the
// golden form of parsed items (in report/parsed's view, the one parse
// --format json writes), so that the dialect packages' golden files read
// alike. It is for tests only.
package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/report/parsed"
	"github.com/autocoder/autocoder/step"
)

var update = flag.Bool("update", false, "rewrite the golden files from the current output (read the diff before you commit it)")

// Updating reports whether the run was asked to rewrite golden files.
func Updating() bool { return *update }

// Check compares got with the golden file at path; under -update it writes
// got there instead (creating the folder).
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update creates it)", err, t.Name())
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the output (go test -update rewrites it):\n%s", path, LineDiff(string(want), string(got)))
	}
}

// LineDiff shows the first lines (at most 12) where want and got part,
// enough to see what changed without a diff library.
func LineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 12; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}

// Items is the golden form of a parse: indented JSON of the items in the
// one view of parsed items (report/parsed, what parse --format json
// writes), ending with a newline.
func Items(items []step.Item) []byte {
	views := parsed.Items(items)
	out, err := json.MarshalIndent(views, "", "  ")
	if err != nil {
		panic(err) // the views hold only encodable fields
	}
	return append(out, '\n')
}
