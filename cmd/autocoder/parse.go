package main

import (
	"fmt"

	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/report"
	"github.com/autocoder/autocoder/step"
	"github.com/urfave/cli/v2"
)

func parseCommand() *cli.Command {
	return &cli.Command{
		Name:      "parse",
		Usage:     "print the steps a response holds, with repairs and errors (changes nothing)",
		ArgsUsage: "[FILE|-]",
		CustomHelpTemplate: examples(
			"autocoder parse response.md                 # the steps, repairs and errors, with line numbers",
			"autocoder parse --format json - < response.md # the same as JSON, content as text",
		),
		Flags: []cli.Flag{formatFlag()},
		Action: func(c *cli.Context) error {
			f, err := format(c)
			if err != nil {
				return err
			}
			text, _, err := readInput(c, 0)
			if err != nil {
				return err
			}
			items, reading := protocol.Read(text)
			var fail error
			switch steps, errs := report.Count(items); {
			case steps == 0:
				fail = &reported{class: step.ClassNoBlock}
			case errs > 0:
				fail = &reported{class: step.ClassStepFailed}
			}
			if f == "json" {
				report.ParseJSON(c.App.Writer, items, reading)
			} else {
				// How the text was read (its encoding, a skipped
				// reasoning section) comes first: it explains the rest.
				for _, n := range reading.Notes() {
					fmt.Fprintf(c.App.Writer, "note   %s\n", n)
				}
				report.Items(c.App.Writer, items)
			}
			return fail
		},
	}
}
