package tjson

import (
	"errors"
	"strings"
	"testing"
)

// Bytes that are not UTF-8 inside a string are refused with their offset,
// never turned into U+FFFD: content is kept or refused, never altered.
func TestInvalidUTF8InAStringIsAnError(t *testing.T) {
	for _, tc := range []struct {
		text string
		off  int
	}{
		{"{\"a\": \"x\xffy\"}", 8},
		{"{\"a\": \"ok\\n\xc3(\"}", 11},
		{"{\"a\": '\xfe'}", 7},
		{"{\"a\": \"\"\"line\n\xff\"\"\"}", 14},
		{"[\"\xed\xa0\x80\"]", 2}, // an encoded surrogate is not UTF-8
	} {
		_, _, _, err := Parse([]byte(tc.text), Start)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: err %v, want a *SyntaxError", tc.text, err)
			continue
		}
		if se.Offset != tc.off || !strings.Contains(se.Msg, "UTF-8") || !strings.Contains(se.Msg, "offset") || se.Hint() == "" {
			t.Errorf("%q: offset %d msg %q hint %q; want offset %d, naming UTF-8 and the offset, with a hint", tc.text, se.Offset, se.Msg, se.Hint(), tc.off)
		}
	}
	// Valid UTF-8 is read as it is.
	v, _, _, err := Parse([]byte("{\"a\": \"h\u00e9llo \u4e16\"}"), Start)
	if err != nil || v.(map[string]any)["a"] != "h\u00e9llo \u4e16" {
		t.Errorf("valid UTF-8: %v %v", v, err)
	}
}
