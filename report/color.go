package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/termsafe"
)

// Colour: cmd/autocoder decides where it may go (a terminal, and no
// NO_COLOR); report decides what is coloured: the status words of the step
// lines, and the lines of a dry run's patch. The colour's own escape
// sequences go to the raw writer (termsafe.Raw); the text they colour, which
// may come from the response, still goes through termsafe, so a response
// cannot write a sequence of its own.

// SGR codes (ECMA-48 Select Graphic Rendition).
const (
	sgrReset  = "\x1b[0m"
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrCyan   = "\x1b[36m"
	sgrBold   = "\x1b[1m"
)

// painter writes text in a colour to w when on is set, and plainly (through
// termsafe) otherwise.
type painter struct {
	w  io.Writer // the escaping writer
	on bool
}

// paint writes text (escaped) in the colour sgr; "" is no colour.
func (p painter) paint(sgr, text string) {
	if !p.on || sgr == "" {
		fmt.Fprint(p.w, text)
		return
	}
	raw := termsafe.Raw(p.w)
	io.WriteString(raw, sgr)
	fmt.Fprint(termsafe.Writer{W: raw}, text)
	io.WriteString(raw, sgrReset)
}

// statusColor is the colour of a status word: what went well green, what
// failed red, what did not happen yellow.
func statusColor(s step.Status) string {
	switch s {
	case step.StatusApplied, step.StatusPlanned:
		return sgrGreen
	case step.StatusFailed:
		return sgrRed
	case step.StatusSkipped, step.StatusRolledBack:
		return sgrYellow
	}
	return ""
}

// status writes the word for a step of status s padded to width, the
// padding uncoloured.
func (p painter) status(s step.Status, word string, width int) {
	p.paint(statusColor(s), word)
	if n := width - len(word); n > 0 {
		fmt.Fprint(p.w, strings.Repeat(" ", n))
	}
}

// patch writes a unified diff as git diff --color does: headers bold, hunk
// headers cyan, removed lines red, added lines green.
func (p painter) patch(text string) {
	if !p.on {
		fmt.Fprint(p.w, text)
		return
	}
	// Inside a hunk a line is told by its first byte alone: a removed
	// line "-- x" reads "--- x", which is no header there.
	inHunk := false
	for _, line := range strings.SplitAfter(text, "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		sgr := ""
		switch {
		case strings.HasPrefix(body, "diff --git "):
			inHunk = false
			sgr = sgrBold
		case strings.HasPrefix(body, "@@"):
			inHunk = true
			sgr = sgrCyan
		case !inHunk:
			sgr = sgrBold // the header lines: ---, +++, index, modes
		case strings.HasPrefix(body, "+"):
			sgr = sgrGreen
		case strings.HasPrefix(body, "-"):
			sgr = sgrRed
		}
		if body != "" {
			p.paint(sgr, body)
		}
		if nl {
			fmt.Fprint(p.w, "\n")
		}
	}
}
