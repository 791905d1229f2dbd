package main

import (
	"github.com/autocoder/autocoder/agent"
	"github.com/autocoder/autocoder/protocol/report"
	"github.com/urfave/cli/v2"
)

func showCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show a step: its commit, its files, the block the model wrote and, for autocoder run, the turn it came from",
		ArgsUsage: "STEP",
		CustomHelpTemplate: examples(
			"autocoder show axon-1     # a step by its id (autocoder log lists them)",
			"autocoder show 1a2b3c4d   # or by its commit",
		),
		Flags: []cli.Flag{formatFlag()},
		Action: func(c *cli.Context) (err error) {
			f, err := format(c)
			if err != nil {
				return err
			}
			if c.NArg() != 1 {
				return &usageError{msg: "show takes one step id or commit", try: "Try: autocoder log, then autocoder show STEP"}
			}
			e, _, err := openEngine(c, "")
			if err != nil {
				return err
			}
			defer closeEngine(c, e, &err)
			info, err := e.Show(c.Args().First())
			if err != nil {
				return err
			}
			var turn *report.Turn
			if p, err := e.Repo.Private(); err == nil {
				if file, rep, t, _, _ := agent.FindTurn(p.Path(runsDir), info.Commit); t != nil {
					turn = &report.Turn{Record: file, Model: rep.Model, Task: rep.Task, N: t.N, Of: len(rep.Turns),
						Answer: t.Answer, Feedback: t.Feedback}
				}
			}
			if f == "json" {
				return report.ShowJSON(c.App.Writer, info, turn)
			}
			report.Show(c.App.Writer, info, turn)
			return nil
		},
	}
}
