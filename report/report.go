// Package report writes what autocoder did for the person or the script
// that ran it: the text report and the --format json output of apply,
// parse, log, undo and redo. It sits beside the dialect writers
// (protocol/acjson, protocol/mcp, protocol/axon), which answer a model in
// its own format; report answers the user, on standard output and
// standard error.
//
// Start with Run (apply's report). Items and ParseJSON are parse's, Log, Undone and Redone
// are the history commands'; Error writes the "autocoder: error:" and
// "autocoder: hint:" lines every command ends a failure with; JSON is the
// one encoder of --format json.
//
// Exit codes are not decided here: cmd/autocoder maps a failure's class to
// its exit code (one switch) and hands the codes in, so the JSON output
// carries the same numbers the process exits with.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// JSON writes v as --format json does: indented, with <, > and & kept as
// they are (a script or a model reads them, not a browser).
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Error writes a failure for people and models: "autocoder: error: what
// failed: why", then one "autocoder: hint:" line per line of the hint that
// holds something (step.HintOf decides whether there is a hint; a blank
// line inside one, such as a program's output, is no hint line).
func Error(w io.Writer, msg, hint string) {
	fmt.Fprintf(w, "autocoder: error: %s\n", msg)
	for _, line := range strings.Split(hint, "\n") {
		if strings.TrimSpace(line) != "" {
			fmt.Fprintf(w, "autocoder: hint: %s\n", line)
		}
	}
}

// indent indents every line of s by four spaces and ends it with a newline.
func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if line == "" {
			continue
		}
		b.WriteString("    ")
		b.WriteString(line)
	}
	if !strings.HasSuffix(s, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}
