package report

import (
	"fmt"
	"io"

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
	for _, en := range entries {
		id := en.StepID
		if en.Kind == "user" {
			id = "(yours)"
		}
		fmt.Fprintf(w, "%s  %-14s %s  %s\n", en.Commit[:12], id, en.Date, en.Subject)
	}
}

// UndoneJSON writes what undo --format json does.
func UndoneJSON(w io.Writer, undone []step.LogEntry) error {
	return JSON(w, undoneJSON{Undone: undone})
}

// Undone writes what undo prints: one line per step taken away, and how to
// put one back.
func Undone(w io.Writer, undone []step.LogEntry) {
	w = termsafe.Writer{W: w}
	for _, u := range undone {
		fmt.Fprintf(w, "undone  %-14s %s %s\n", u.StepID, u.Commit[:12], u.Subject)
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
