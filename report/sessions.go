package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/autocoder/autocoder/termsafe"
)

// Session is one worktree session as autocoder sessions lists it.
type Session struct {
	Branch string       `json:"branch" jsonschema:"its work branch (empty when its worktree is on a detached HEAD)"`
	Path   string       `json:"path" jsonschema:"the linked worktree's folder"`
	Commit string       `json:"commit" jsonschema:"the commit its worktree is on"`
	State  SessionState `json:"state" jsonschema:"running: a command works in it; kept: its command ended and left it for you to look at (git worktree remove PATH when done)"`
	Holder string       `json:"holder,omitempty" jsonschema:"for a running session: the command that runs it (pid, host, command line, since)"`
}

// SessionState is whether a command works in a session.
type SessionState string

// The states of a session.
const (
	SessionRunning SessionState = "running" // a command works in it
	SessionKept    SessionState = "kept"    // its command ended and left it for the user
)

// sessionsJSON is sessions --format json (schema/sessions.schema.json).
type sessionsJSON struct {
	Sessions []Session `json:"sessions" jsonschema:"the running and kept worktree sessions"`
}

// SessionsJSON writes what sessions --format json does ([] when there is
// none).
func SessionsJSON(w io.Writer, list []Session) error {
	if list == nil {
		list = []Session{}
	}
	return JSON(w, sessionsJSON{Sessions: list})
}

// Sessions writes what sessions prints: one line per session (state,
// branch, path), or that there is none.
func Sessions(w io.Writer, list []Session) {
	w = termsafe.Writer{W: w} // branch names and paths are the repository's
	if len(list) == 0 {
		fmt.Fprintln(w, "no session (autocoder apply, run or mcp with --worktree starts one)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range list {
		b := s.Branch
		if b == "" {
			b = "(detached " + s.Commit[:12] + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.State, b, s.Path)
	}
	tw.Flush()
}
