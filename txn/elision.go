package txn

import (
	"bytes"
	"fmt"
	"regexp"
	"sync"

	"github.com/autocoder/autocoder/step"
)

// ElisionError is a whole-file write that would lose code: its content
// holds a placeholder where the model left out the file's text ("// ...
// existing code ...", "# rest of the file unchanged"), and writing it would
// drop most of the file. Models write these meaning "keep what is there";
// written as is, the file would lose that code.
type ElisionError struct {
	Path        string
	Line        int    // the placeholder's line in the content, 1-based
	Placeholder string // its text
	Lost, Total int    // non-blank lines of the file the write would drop, of all
}

func (e *ElisionError) Error() string {
	return fmt.Sprintf("refused to overwrite %s: line %d of the new content is a placeholder (%q), and the write would drop %d of the file's %d lines",
		e.Path, e.Line, e.Placeholder, e.Lost, e.Total)
}

// Class is refused: the content cannot be written as sent.
func (e *ElisionError) Class() step.Class { return step.ClassRefused }

// Hint says what to send instead.
func (e *ElisionError) Hint() string {
	return "send an edit that replaces only the part that changes (old text and new text), or the whole file with nothing left out"
}

// elisionLine matches a comment that stands for code left out: a comment
// marker, optionally "...", then words that say the code is elsewhere or
// unchanged, or "..." alone with such words after it.
var elisionLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*(#|//|/\*|<!--|--|;|\*|\{/\*)\s*(\.\.\.|…)?\s*([\[(]?\s*)(\.\.\.|…)?\s*(the\s+)?(rest\s+of\s+(the\s+)?(file|code|class|function|module|methods?|implementation)|existing\s+(code|content|imports|methods|functions|implementation)|remaining\s+(code|methods|functions)|other\s+(code|methods|functions)|(code|file|everything\s+else|rest)\s+(remains?|stays?|is)\s+(the\s+same|unchanged)|unchanged\s+(code|content)|same\s+as\s+before|previous\s+(code|content)|keep\s+(the\s+)?existing)`)
})

// findElision returns the first placeholder line of content (1-based) and
// its text, or 0.
func findElision(content []byte) (int, string) {
	for i, line := range bytes.Split(content, []byte("\n")) {
		if len(line) < 200 && elisionLine().Match(line) {
			return i + 1, string(bytes.TrimSpace(line))
		}
	}
	return 0, ""
}

// checkElision refuses a whole-file write of content over old when the
// content holds a placeholder and more than half of old's non-blank lines
// are nowhere in it.
func checkElision(rel string, old, content []byte) error {
	n, text := findElision(content)
	if n == 0 {
		return nil
	}
	kept := map[string]bool{}
	for _, l := range bytes.Split(content, []byte("\n")) {
		kept[string(bytes.TrimSpace(l))] = true
	}
	lost, total := 0, 0
	for _, l := range bytes.Split(old, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if len(t) == 0 {
			continue
		}
		total++
		if !kept[string(t)] {
			lost++
		}
	}
	if total == 0 || lost*2 <= total {
		return nil
	}
	return &ElisionError{Path: rel, Line: n, Placeholder: text, Lost: lost, Total: total}
}
