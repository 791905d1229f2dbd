package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/termsafe"
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
	out := showJSON{Step: info}
	if turn != nil {
		out.Run = &turnJSON{Record: turn.Record, Model: turn.Model, Task: turn.Task, Turn: turn.N,
			Answer: turn.Answer, Feedback: turn.Feedback}
	}
	return JSON(w, out)
}

// showJSON is show --format json (schema/show.schema.json).
type showJSON struct {
	Run  *turnJSON        `json:"run,omitempty" jsonschema:"the turn of autocoder run the step came from; absent when it came from elsewhere"`
	Step *step.CommitInfo `json:"step" jsonschema:"the step's commit"`
}

type turnJSON struct {
	Answer   string `json:"answer" jsonschema:"the model's answer that turn"`
	Feedback string `json:"feedback" jsonschema:"the executor's answer to it"`
	Model    string `json:"model"`
	Record   string `json:"record" jsonschema:"the file that records the run"`
	Task     string `json:"task"`
	Turn     int    `json:"turn" jsonschema:"the turn's number, from 1"`
}

// Show writes what show prints: the step's commit and message, its files,
// the block the model wrote, and the turn of autocoder run it came from.
func Show(w io.Writer, info *step.CommitInfo, turn *Turn) {
	// The message, the block and the turn are the response's text (and
	// the model's): shown, not obeyed.
	w = termsafe.Writer{W: w}
	if info.Branch == "" {
		fmt.Fprintf(w, "step %s, commit %s\n", info.StepID, info.Commit) // found by its commit, off a work branch
	} else {
		fmt.Fprintf(w, "step %s, commit %s on %s\n", info.StepID, info.Commit, info.Branch)
	}
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
