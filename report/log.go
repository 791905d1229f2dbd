package report

import (
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/termsafe"
)

// LogJSON writes what log --format json does: the branch and its commits,
// newest first ([] when there is none).
func LogJSON(w io.Writer, branch string, entries []step.LogEntry) error {
	if entries == nil {
		entries = []step.LogEntry{}
	}
	return JSON(w, logJSON{Branch: branch, Steps: entries})
}

// logJSON is log --format json (schema/log.schema.json).
type logJSON struct {
	Branch string          `json:"branch" jsonschema:"the current work branch"`
	Steps  []step.LogEntry `json:"steps" jsonschema:"its commits since it started, newest first: the steps, and the user's own commits (kind user)"`
}

// undoneJSON is undo --format json (schema/undo.schema.json).
type undoneJSON struct {
	Undone []step.LogEntry `json:"undone" jsonschema:"the steps taken away, newest first"`
}

// redoneJSON is redo --format json (schema/redo.schema.json).
type redoneJSON struct {
	Redone step.LogEntry `json:"redone" jsonschema:"the step put back: its new commit"`
}

// Log writes what log prints: a count of the steps (and of the user's own
// commits among them), then one line per commit, newest first.
func Log(w io.Writer, branch string, entries []step.LogEntry) {
	w = termsafe.Writer{W: w} // step ids and subjects are the response's
	steps := 0
	for _, en := range entries {
		if en.Kind == "step" {
			steps++
		}
	}
	fmt.Fprintf(w, "work branch %s: %d step(s)", branch, steps)
	if own := len(entries) - steps; own > 0 {
		fmt.Fprintf(w, " and %d commit(s) of your own", own)
	}
	fmt.Fprintln(w)
	ids := make([]string, len(entries))
	for i, en := range entries {
		ids[i] = en.StepID
		if en.Kind == "user" {
			ids[i] = "(yours)"
		}
	}
	wid := idWidth(ids)
	for i, en := range entries {
		fmt.Fprintf(w, "%s  %-*s %s  %s\n", en.Commit[:12], wid, ids[i], en.Date, en.Subject)
	}
}

// idWidth is the width of the step-id column: the usual 14, or the longest
// id (up to 40) so that the columns after it line up.
func idWidth(ids []string) int {
	w := 14
	for _, id := range ids {
		if n := utf8.RuneCountInString(id); n > w {
			w = min(n, 40)
		}
	}
	return w
}

// UndoneJSON writes what undo --format json does.
func UndoneJSON(w io.Writer, undone []step.LogEntry) error {
	return JSON(w, undoneJSON{Undone: undone})
}

// Undone writes what undo prints: one line per step taken away, and how to
// put one back.
func Undone(w io.Writer, undone []step.LogEntry) {
	w = termsafe.Writer{W: w}
	ids := make([]string, len(undone))
	for i, u := range undone {
		ids[i] = u.StepID
	}
	wid := idWidth(ids)
	for _, u := range undone {
		fmt.Fprintf(w, "undone  %-*s %s %s\n", wid, u.StepID, u.Commit[:12], u.Subject)
	}
	fmt.Fprintln(w, "autocoder redo puts the most recently undone step back")
}

// RedoneJSON writes what redo --format json does.
func RedoneJSON(w io.Writer, r step.LogEntry) error {
	return JSON(w, redoneJSON{Redone: r})
}

// Redone writes what redo prints: the step put back.
func Redone(w io.Writer, r step.LogEntry) {
	w = termsafe.Writer{W: w}
	fmt.Fprintf(w, "redone  %-14s %s %s\n", r.StepID, r.Commit[:12], r.Subject)
}
