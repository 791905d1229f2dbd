package fence

import (
	"bytes"
	"strings"
	"testing"
)

// TestIndexIsBytesIndex checks Index against bytes.Index on the markers the
// readers look for, in texts that hold them, hold their first bytes
// without them, hold them cut at the text's end, and hold them twice.
func TestIndexIsBytesIndex(t *testing.T) {
	keys := []string{"*** Begin Patch", `"apply_patch_call"`, "<replace_in_file>", " SEARCH", `"command"`, "diff --git ", "x", "mcp-request"}
	for _, key := range keys {
		texts := []string{"", key, key[:len(key)-1], "a" + key, strings.Repeat(key[:1], 40) + key + key,
			strings.Repeat("fmt.Println(\"<<<< *** _\")\n", 50) + key[:len(key)/2] + "\n" + key + "tail",
			strings.Repeat(key[:len(key)-1]+" ", 20), "好的" + key + "好的"}
		for _, s := range texts {
			if got, want := Index([]byte(s), key), bytes.Index([]byte(s), []byte(key)); got != want {
				t.Errorf("Index(%q, %q) = %d, want %d", s, key, got, want)
			}
			if got, want := Contains([]byte(s), key), strings.Contains(s, key); got != want {
				t.Errorf("Contains(%q, %q) = %v, want %v", s, key, got, want)
			}
		}
	}
}

func FuzzIndex(f *testing.F) {
	f.Add([]byte("a <<<<<<< SEARCH\n"), " SEARCH")
	f.Add([]byte(`{"type": "apply_patch_call"}`), `"apply_patch_call"`)
	f.Fuzz(func(t *testing.T, text []byte, key string) {
		if got, want := Index(text, key), bytes.Index(text, []byte(key)); got != want {
			t.Errorf("Index(%q, %q) = %d, want %d", text, key, got, want)
		}
	})
}
