package mcp

import (
	"encoding/json"
	"testing"
)

// FuzzUnquote holds the tree reader's string decoding to encoding/json's on
// every string encoding/json accepts.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`""`, `"plain"`, `"a\nb\t\"q\"\\\/"`, `"\u00e9\u4e2d\ud83d\ude00"`, `"\ud800x"`, `"\udc00\ud800"`, "\"\xff\xfe bad utf8\"", `"\u0000"`, "\"中文\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want string
		if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' || json.Unmarshal(raw, &want) != nil {
			return
		}
		r := &treeReader{data: raw}
		if got := r.str(); got != want {
			t.Fatalf("str(%q) = %q, encoding/json says %q", raw, got, want)
		}
		if r.pos != len(raw) {
			t.Fatalf("str(%q) stopped at %d of %d", raw, r.pos, len(raw))
		}
	})
}
