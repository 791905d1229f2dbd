package acjson

import (
	"github.com/autocoder/autocoder/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func corpus(t testing.TB) []string {
	files, err := filepath.Glob("../../testdata/responses/acjson-*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 16 {
		t.Fatalf("found %d corpus files, want at least 16", len(files))
	}
	return files
}

// TestGolden reads every acjson-*.md of the response corpus and compares the
// items with <name>.golden.json.
func TestGolden(t *testing.T) {
	for _, name := range corpus(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			items := Parse(data)
			checkItems(t, data, items)
			golden.Check(t, strings.TrimSuffix(name, ".md")+".golden.json", golden.Items(items))
		})
	}
}
