package main

import (
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/agent"
	"github.com/urfave/cli/v2"
)

func showCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show a step: its commit, its files, the block the model wrote and, for autocoder run, the turn it came from",
		ArgsUsage: "STEP",
		Flags:     []cli.Flag{formatFlag},
		Action: func(c *cli.Context) error {
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
			defer e.Close()
			info, err := e.Show(c.Args().First())
			if err != nil {
				return err
			}
			var file string
			var rep *agent.Report
			var turn *agent.Turn
			if p, err := e.Repo.Private(); err == nil {
				file, rep, turn, _, _ = agent.FindTurn(p.Path(runsDir), info.Commit)
			}
			w := c.App.Writer
			if f == "json" {
				out := map[string]any{"step": info}
				if turn != nil {
					out["run"] = map[string]any{"record": file, "model": rep.Model, "task": rep.Task, "turn": turn.N,
						"answer": turn.Answer, "feedback": turn.Feedback}
				}
				writeJSON(w, out)
				return nil
			}
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
				fmt.Fprintf(w, "\nfrom autocoder run, turn %d of %d (model %s), recorded in %s\n", turn.N, len(rep.Turns), rep.Model, file)
				fmt.Fprintf(w, "task: %s\n", strings.TrimSpace(rep.Task))
				if turn.Feedback != "" {
					fmt.Fprintln(w, "result (the executor's answer that turn):")
					fmt.Fprint(w, indent(turn.Feedback))
				}
			}
			return nil
		},
	}
}
