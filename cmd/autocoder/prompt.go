package main

import (
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/prompt"
	"github.com/urfave/cli/v2"
)

func promptCommand() *cli.Command {
	return &cli.Command{
		Name:      "prompt",
		Usage:     "print the system prompt that teaches a model a dialect (" + strings.Join(prompt.Dialects, ", ") + ")",
		ArgsUsage: "DIALECT",
		CustomHelpTemplate: examples(
			"autocoder prompt axon --lang en     # the Axon prompt, in English",
			"autocoder prompt autocoder > system.md",
		),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "lang", Value: prompt.Langs[0], Usage: "the prompt's `LANGUAGE`: " + strings.Join(prompt.Langs, " or ")},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return &usageError{msg: "prompt takes one dialect", try: "Try: autocoder prompt " + strings.Join(prompt.Dialects, "|")}
			}
			text, err := prompt.Text(c.Args().First(), c.String("lang"))
			if err != nil {
				return &usageError{msg: err.Error(), try: "Try: autocoder prompt " + strings.Join(prompt.Dialects, "|") + " --lang " + strings.Join(prompt.Langs, "|")}
			}
			_, err = fmt.Fprint(c.App.Writer, text)
			return err
		},
	}
}
