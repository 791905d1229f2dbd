// Package termsafe escapes text that came from a response (paths, reasons,
// errors that quote it, a program's output) before it reaches a terminal,
// so that an escape sequence in it is shown, not obeyed: "\x1b[1A\x1b[2K"
// in a step's reason would otherwise move the cursor up and erase the line
// that says the step failed. Start with Escape; Writer applies it to
// everything written through it.
//
// It is a leaf: it imports nothing of ours, so the path policy, the result
// renderer and cmd's error printer share its one notion of a control
// character (IsControl).
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// IsControl reports the runes a terminal would act on or display out of
// order: C0 control characters, DEL, C1 control characters, and the
// bidirectional overrides and isolates that make text display in another
// order than it is read ("Trojan Source").
func IsControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// Escape returns s with every control rune but the line break and the tab
// written as a Go escape (\x1b, \r, \u202e), and every byte that is not
// UTF-8 as \xNN. Text without one is returned as it is.
func Escape(s string) string {
	clean := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || (IsControl(r) && r != '\n' && r != '\t') {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Writer escapes (see Escape) everything written to W. Each Write is
// escaped on its own, so a write should hold whole runes; fmt's functions
// write each formatted message in one call.
type Writer struct{ W io.Writer }

// Write writes the escaped p and reports len(p) on success, as io.Writer
// requires, although more bytes may reach W.
func (w Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, Escape(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Raw is w without the escaping of the Writers wrapped around it: for the
// sequences autocoder writes itself (colour), never for text that came
// from a response.
func Raw(w io.Writer) io.Writer {
	for {
		tw, ok := w.(Writer)
		if !ok {
			return w
		}
		w = tw.W
	}
}
