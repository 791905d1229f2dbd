package matcher

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/autocoder/autocoder/step"
)

// Region is the part of a file nearest to an old text that was not found.
type Region struct {
	StartLine, EndLine int     // 1-based, inclusive
	Similarity         float64 // 0..1; 1 means equal apart from white space at line edges
	Diff               string  // unified diff from the old text to the region
	// WhiteSpace, when not "", says how the region differs from the old
	// text when its lines are the old text's apart from the white space at
	// their edges ("the file indents with tabs where the old text has
	// spaces"): a difference the diff shows but a reader hardly sees.
	WhiteSpace string
	// Changed, when the region differs in more lines than a diff shows
	// (then Diff is ""), is how many of its lines differ.
	Changed int
}

// NoMatchError reports an old text that occurs nowhere, in no tier.
// Nearest is nil when no part of the file resembles it.
type NoMatchError struct {
	Nearest *Region
}

func (e *NoMatchError) Error() string {
	if e.Nearest == nil {
		return "old text not found: nothing in the file resembles it"
	}
	if e.Nearest.WhiteSpace != "" {
		return fmt.Sprintf("old text not found: lines %d-%d differ from it only in white space",
			e.Nearest.StartLine, e.Nearest.EndLine)
	}
	return fmt.Sprintf("old text not found: nearest is lines %d-%d (%.0f%% similar)",
		e.Nearest.StartLine, e.Nearest.EndLine, 100*e.Nearest.Similarity)
}

// Class is step failed: the old text is not in the file.
func (e *NoMatchError) Class() step.Class { return step.ClassStepFailed }

// Hint says what the model should send instead, followed by the unified
// diff from its old text to the nearest region, so that it can copy the
// right lines.
func (e *NoMatchError) Hint() string {
	if e.Nearest == nil {
		return "read the file again and copy the old text exactly as it is now"
	}
	h := fmt.Sprintf("copy the old text exactly from lines %d-%d shown in the diff (- is what you sent, + is the file)",
		e.Nearest.StartLine, e.Nearest.EndLine)
	if e.Nearest.Changed > 0 {
		h = fmt.Sprintf("read lines %d-%d again and copy the old text exactly from them: %d of its lines differ from what you sent",
			e.Nearest.StartLine, e.Nearest.EndLine, e.Nearest.Changed)
	}
	if e.Nearest.WhiteSpace != "" {
		h = fmt.Sprintf("copy the old text exactly from lines %d-%d, white space included: %s (the diff: - is what you sent, + is the file)",
			e.Nearest.StartLine, e.Nearest.EndLine, e.Nearest.WhiteSpace)
	}
	if e.Nearest.Diff != "" {
		h += "\n" + strings.TrimRight(e.Nearest.Diff, "\n")
	}
	return h
}

// AmbiguousMatchError reports an old text that occurs more than once in the
// first tier that finds it, where no identifier picked exactly one.
type AmbiguousMatchError struct {
	Lines []int // 1-based start line of every occurrence
	Tier  Tier  // the tier that found them
	// Identifier is the edit's identifier ("" when it had none).
	Identifier string
	// Defined lists the 1-based lines where the identifier was found defined
	// (empty when it was not found).
	Defined []int
	// Inside lists the occurrences (1-based start lines) that lie inside
	// the identifier's definitions.
	Inside []int
	// Anchored: the edit could have named its place with an anchor (an
	// apply_patch chunk's @@ line), so the hint says so.
	Anchored bool
}

func (e *AmbiguousMatchError) Error() string {
	s := fmt.Sprintf("old text occurs %d times (%s) at lines %s", len(e.Lines), e.Tier, joinInts(e.Lines))
	if len(e.Lines) >= maxMatches {
		// The tiers stop counting there (see maxMatches).
		s = fmt.Sprintf("old text occurs at least %d times (%s) at lines %s", len(e.Lines), e.Tier, joinInts(e.Lines))
	}
	switch {
	case e.Identifier == "":
	case len(e.Defined) == 0:
		s += fmt.Sprintf("; identifier %q is not defined in the file", e.Identifier)
	case len(e.Inside) == 0:
		s += fmt.Sprintf("; none lies inside identifier %q (defined at line %s)", e.Identifier, joinInts(e.Defined))
	default:
		s += fmt.Sprintf("; %d lie inside identifier %q (lines %s)", len(e.Inside), e.Identifier, joinInts(e.Inside))
	}
	return s
}

// Class is step failed: the old text is in the file more than once.
func (e *AmbiguousMatchError) Class() step.Class { return step.ClassStepFailed }

// Hint says what the model should send instead.
func (e *AmbiguousMatchError) Hint() string {
	lines := e.Lines
	if len(e.Inside) > 1 {
		lines = e.Inside
	}
	if e.Anchored {
		return fmt.Sprintf("add more context lines, or an @@ line repeating a whole line of the file before the change (e.g. @@ def f():), to pick one of lines %s", joinInts(lines))
	}
	return fmt.Sprintf("add more surrounding lines to the old text, or an identifier naming the enclosing function, to pick one of lines %s", joinInts(lines))
}

// joinInts writes line numbers as "2, 4, 6"; occurrences on one line are
// counted there ("9 (twice)"), not repeated.
func joinInts(xs []int) string {
	const most = 20 // a list this long already says "add context"
	var b strings.Builder
	for i, n := 0, 0; i < len(xs); n++ {
		if n == most {
			fmt.Fprintf(&b, ", … (%d more)", len(xs)-i)
			break
		}
		j := i + 1
		for j < len(xs) && xs[j] == xs[i] {
			j++
		}
		if n > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(xs[i]))
		switch j - i {
		case 1:
		case 2:
			b.WriteString(" (twice)")
		default:
			fmt.Fprintf(&b, " (%d times)", j-i)
		}
		i = j
	}
	return b.String()
}

// IndentError reports a new text whose indentation cannot be written in the
// file's: its old text was found only by reading indentation as levels
// (IndentLevels), and a line of the new text is not a whole number of the
// old text's levels, or not in its character.
type IndentError struct {
	Line   int    // 1-based line of the new text
	What   string // what is wrong with that line
	To     byte   // the file's indentation character (0 when unknown)
	ToUnit int    // the file's width of a level
}

func (e *IndentError) Error() string {
	return fmt.Sprintf("old text found with its indentation read as levels, but line %d of the new text %s", e.Line, e.What)
}

// Class is step failed: the new text cannot be placed as it was written.
func (e *IndentError) Class() step.Class { return step.ClassStepFailed }

// Hint says what the model should send instead.
func (e *IndentError) Hint() string {
	switch {
	case e.To == '\t':
		return "indent the old and new texts with tabs, one tab a level, as the file does"
	case e.To == ' ' && e.ToUnit > 0:
		return fmt.Sprintf("indent the old and new texts with spaces, %d a level, as the file does", e.ToUnit)
	}
	return "indent the old and new texts exactly as the file's lines are"
}

// EmptyOldError reports an edit whose old text is empty: it would match
// everywhere.
type EmptyOldError struct{}

func (e *EmptyOldError) Error() string { return "old text is empty: it would match anywhere" }

// Class is step failed: the edit cannot be placed.
func (e *EmptyOldError) Class() step.Class { return step.ClassStepFailed }

// Hint says what the model should send instead.
func (e *EmptyOldError) Hint() string {
	return "put the lines to replace in the old text; to add text, include the line it goes after and repeat it in the new text"
}

// NoChangeError reports an edit whose old and new texts are equal.
type NoChangeError struct{}

func (e *NoChangeError) Error() string { return "old text equals new text: the edit changes nothing" }

// Class is step failed: the edit changes nothing.
func (e *NoChangeError) Class() step.Class { return step.ClassStepFailed }

// Hint says what the model should send instead.
func (e *NoChangeError) Hint() string {
	return "make the new text differ from the old text, or drop the edit"
}

// BinaryError reports content holding a NUL byte: it is not text.
type BinaryError struct {
	In     string // "file", "old text" or "new text"
	Offset int    // of the first NUL byte
	Line   int    // 1-based
}

func (e *BinaryError) Error() string {
	return fmt.Sprintf("%s is binary: NUL byte at line %d (byte offset %d)", e.In, e.Line, e.Offset)
}

// Class is step failed: binary content is never edited as text.
func (e *BinaryError) Class() step.Class { return step.ClassStepFailed }

// Hint says what the model should send instead.
func (e *BinaryError) Hint() string {
	return "binary files cannot be edited by text replacement; write the whole file instead, or leave it alone"
}

// EncodingError reports content that is not valid UTF-8.
type EncodingError struct {
	In        string // "file", "old text" or "new text"
	Offset    int    // of the first invalid byte
	Line, Col int    // 1-based; Col counts bytes
	Quote     string // the bytes around it, quoted
	// Looks names the encoding the bytes resemble ("UTF-16LE", "UTF-16BE",
	// "Latin-1"), or "".
	Looks string
}

func (e *EncodingError) Error() string {
	s := fmt.Sprintf("%s is not UTF-8: invalid byte at line %d, column %d (byte offset %d) near %s", e.In, e.Line, e.Col, e.Offset, e.Quote)
	if e.Looks != "" {
		s += "; it looks like " + e.Looks
	}
	return s
}

// Class is step failed: the content is not UTF-8.
func (e *EncodingError) Class() step.Class { return step.ClassStepFailed }

// Hint says what the model should send instead.
func (e *EncodingError) Hint() string {
	if e.In != "file" {
		return "send the " + e.In + " as UTF-8"
	}
	if e.Looks != "" {
		return "convert the file to UTF-8 first (for example iconv -f " + iconvName(e.Looks) + " -t UTF-8), or write the whole file instead"
	}
	return "convert the file to UTF-8 first, or write the whole file instead"
}

// EditError is the failure of edit Index (0-based) of a ReplaceAll call.
type EditError struct {
	Index int
	Err   error
}

func (e *EditError) Error() string { return fmt.Sprintf("edit %d: %v", e.Index+1, e.Err) }

// Unwrap returns the typed error, for errors.As.
func (e *EditError) Unwrap() error { return e.Err }

// iconvName turns a description of an encoding ("Latin-1 (ISO-8859-1 or
// Windows-1252)") into a name iconv accepts, so that the hint's command runs.
func iconvName(looks string) string {
	switch l := strings.ToUpper(looks); {
	case strings.HasPrefix(l, "UTF-16LE"):
		return "UTF-16LE"
	case strings.HasPrefix(l, "UTF-16BE"):
		return "UTF-16BE"
	case strings.Contains(l, "1252"):
		return "WINDOWS-1252"
	default:
		return "ISO-8859-1"
	}
}

// AnchorError reports an anchor (apply_patch's "@@ def f") that equals no
// whole line of the file at or after the place its chunk may start.
type AnchorError struct {
	Anchor   string
	FromLine int // 1-based: the first line searched
}

func (e *AnchorError) Error() string {
	return fmt.Sprintf("anchor %q matches no whole line of the file from line %d on", strings.TrimSpace(e.Anchor), e.FromLine)
}

// Class is step failed: the anchor is not in the file.
func (e *AnchorError) Class() step.Class { return step.ClassStepFailed }

// Hint says what the model should send instead.
func (e *AnchorError) Hint() string {
	return "an @@ anchor must repeat one whole line of the file exactly (e.g. @@ def f(x): or @@ class Config {), at or after the previous chunk; read the file again, or drop the anchor and give more context lines"
}
