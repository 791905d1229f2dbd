package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/autocoder/autocoder/agent"
	"github.com/autocoder/autocoder/report"
	"github.com/autocoder/autocoder/txn"
)

func showCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show a step: its commit, its files, the block the model wrote and, for autocoder run, the turn it came from",
		ArgsUsage: "[STEP]",
		CustomHelpTemplate: examples(
			"autocoder show            # the newest step",
			"autocoder show axon-1     # a step by its id (autocoder log lists them)",
			"autocoder show 1a2b3c4d   # or by its commit",
			"autocoder show --branch autocoder/main-2   # the newest step of a session's branch",
		),
		Flags: []cli.Flag{formatFlag(), viewFlag()},
		Action: func(c *cli.Context) (err error) {
			f, err := format(c)
			if err != nil {
				return err
			}
			if c.NArg() > 1 {
				return &usageError{msg: "show takes one step id or commit", try: "Try: autocoder log, then autocoder show STEP"}
			}
			e, err := openView(c, false)
			if err != nil {
				return err
			}
			defer closeEngine(c, e.Engine, &err)
			info, err := e.Show(c.Args().First())
			var amb *txn.AmbiguousStepError
			if errors.As(err, &amb) {
				// Each candidate with the autocoder run it came from.
				amb.Runs = map[string]string{}
				for _, cand := range amb.Candidates {
					if t := findTurn(e.Engine, cand.Commit); t != nil {
						amb.Runs[cand.Commit] = fmt.Sprintf("autocoder run %s, turn %d", t.Record, t.N)
					}
				}
			}
			if err != nil {
				return err
			}
			turn := findTurn(e.Engine, info.Commit)
			if f == "json" {
				return report.ShowJSON(c.App.Writer, info, turn)
			}
			report.Show(c.App.Writer, info, turn)
			return nil
		},
	}
}

// findTurn is the autocoder run turn that made commit, or nil.
func findTurn(e *txn.Engine, commit string) *report.Turn {
	file, rep, t, _, _ := agent.Recorded(e.Private(), commit)
	if t == nil {
		return nil
	}
	return &report.Turn{Record: file, Model: rep.Model, Task: rep.Task, N: t.N, Of: len(rep.Turns), Answer: t.Answer, Feedback: t.Feedback}
}
