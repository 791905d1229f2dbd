package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/autocoder/autocoder/step"
)

// Turn is the turn of `autocoder run` a step came from, as show tells it.
type Turn struct {
	Record   string // the run's record file
	Model    string
	Task     string
	N, Of    int // this turn's number, and the run's number of turns
	Answer   string
	Feedback string
}

// ShowJSON writes what show --format json does: the step, and the turn it
// came from when there is one.
func ShowJSON(w io.Writer, info *step.CommitInfo, turn *Turn) error {
	out := map[string]any{"step": info}
	if turn != nil {
		out["run"] = map[string]any{"record": turn.Record, "model": turn.Model, "task": turn.Task, "turn": turn.N,
			"answer": turn.Answer, "feedback": turn.Feedback}
	}
	return JSON(w, out)
}

// Show writes what show prints: the step's commit and message, its files,
// the block the model wrote, and the turn of autocoder run it came from.
func Show(w io.Writer, info *step.CommitInfo, turn *Turn) {
	fmt.Fprintf(w, "step %s, commit %s on %s\n", info.StepID, info.Commit, info.Branch)
	fmt.Fprintf(w, "author %s, %s\n\n", info.Author, info.Date)
	fmt.Fprint(w, indent(strings.TrimRight(info.Message, "\n")+"\n"))
	fmt.Fprintln(w, "\nfiles:")
	for _, fl := range info.Files {
		fmt.Fprintf(w, "    %s\n", fl)
	}
	if info.Block != "" {
		fmt.Fprintf(w, "\nblock (git notes --ref autocoder show %s):\n", info.Commit[:12])
		fmt.Fprint(w, indent(info.Block))
	}
	if turn != nil {
		fmt.Fprintf(w, "\nfrom autocoder run, turn %d of %d (model %s), recorded in %s\n", turn.N, turn.Of, turn.Model, turn.Record)
		fmt.Fprintf(w, "task: %s\n", strings.TrimSpace(turn.Task))
		if turn.Feedback != "" {
			fmt.Fprintln(w, "result (the executor's answer that turn):")
			fmt.Fprint(w, indent(turn.Feedback))
		}
	}
}
