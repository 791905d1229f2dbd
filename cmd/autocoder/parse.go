package main

import (
	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/protocol/report"
	"github.com/autocoder/autocoder/step"
	"github.com/urfave/cli/v2"
)

func parseCommand() *cli.Command {
	return &cli.Command{
		Name:      "parse",
		Usage:     "print the steps a response holds, with repairs and errors (changes nothing)",
		ArgsUsage: "[FILE|-]",
		Flags:     []cli.Flag{formatFlag},
		Action: func(c *cli.Context) error {
			f, err := format(c)
			if err != nil {
				return err
			}
			text, _, err := readInput(c, 0)
			if err != nil {
				return err
			}
			items := protocol.Parse(text)
			var fail error
			switch steps, errs := report.Count(items); {
			case steps == 0:
				fail = &reported{class: step.ClassNoBlock}
			case errs > 0:
				fail = &reported{class: step.ClassStepFailed}
			}
			if f == "json" {
				report.ItemsJSON(c.App.Writer, items)
			} else {
				report.Items(c.App.Writer, items)
			}
			return fail
		},
	}
}
