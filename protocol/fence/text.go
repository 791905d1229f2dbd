package fence

import "github.com/autocoder/autocoder/textpos"

// Text is a response scanned once for every reader of it: protocol runs
// eight readers over one response, and each needs its fenced blocks or its
// line index (a 10 MB answer took a scan and an index per reader). Readers
// take a *Text and must not change it: its Blocks, their Content and its
// Lines are shared.
type Text struct {
	Bytes  []byte
	Blocks []Block        // Scan(Bytes)
	Lines  *textpos.Index // the line starts of Bytes, for positions
}

// NewText scans text once: its fenced blocks and its line starts.
func NewText(text []byte) *Text {
	return &Text{Bytes: text, Blocks: Scan(text), Lines: textpos.NewIndex(text)}
}
