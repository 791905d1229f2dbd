package agent

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/autocoder/autocoder/step"
)

// Commits are the commits the run made, oldest first: each step's, then
// the one recording the files its programs changed.
func (r *Report) Commits() []string {
	var out []string
	for _, t := range r.Turns {
		for _, res := range t.Results {
			if res.Commit != "" {
				out = append(out, res.Commit)
			}
			if res.ProgramCommit != "" {
				out = append(out, res.ProgramCommit)
			}
		}
	}
	return out
}

// Results are the results of every turn, in order.
func (r *Report) Results() []step.Result {
	var out []step.Result
	for _, t := range r.Turns {
		out = append(out, t.Results...)
	}
	return out
}

var stopText = map[Stop]string{
	StopFinished:    "the model finished",
	StopNoBlock:     "the model answered without an instruction block",
	StopMaxTurns:    "the turn limit was reached before the model finished",
	StopBudget:      "the token budget was used up before the model finished",
	StopInterrupted: "interrupted; the turn in flight was not applied or was taken back",
	StopError:       "the model API failed; nothing of that turn was applied",
}

// Print says what the run did and how to review it: branch is the work
// branch ("" when no step committed), base the commit the run started from.
func (r *Report) Print(w io.Writer, branch, base string) {
	why := stopText[r.Stop]
	if r.Stop == StopInterrupted && len(r.Turns) > 0 && r.Turns[len(r.Turns)-1].committed() {
		why = "interrupted once the last turn was applied; no further turn was asked"
	}
	fmt.Fprintf(w, "\nautocoder run: %d turn%s, %d tokens, %s: %s\n", len(r.Turns), plural(len(r.Turns)),
		r.Tokens, r.Elapsed.Round(100*time.Millisecond), why)
	if r.Finished != "" {
		fmt.Fprintf(w, "summary: %s\n", strings.TrimSpace(r.Finished))
	}
	if parts, steps := tally(r.Results()); steps > 0 {
		fmt.Fprintf(w, "steps: %d (%s)\n", steps, parts)
	}
	commits := r.Commits()
	if len(commits) == 0 || branch == "" {
		fmt.Fprintln(w, "no commit was made")
		return
	}
	fmt.Fprintf(w, "%d commit%s on %s\n", len(commits), plural(len(commits)), branch)
	from := base
	if len(from) > 12 {
		from = from[:12]
	}
	if from == "" {
		fmt.Fprintf(w, "review: git log --stat %s    (or autocoder log)\n", branch)
	} else {
		fmt.Fprintf(w, "review: git log --stat %s..%s    (or autocoder log)\n", from, branch)
	}
	fmt.Fprintf(w, "drop them: autocoder undo %d\n", len(commits))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
