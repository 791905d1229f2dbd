package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/autocoder/autocoder/prompt"
	"github.com/urfave/cli/v2"
)

// localeDefault is what --lang's help says when no language is named: the
// user's locale decides (prompt.LocaleLang).
const localeDefault = "zh in a Chinese locale (LC_ALL, LC_MESSAGES, LANG), else en"

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
			&cli.StringFlag{Name: "lang", Usage: "the prompt's `LANGUAGE`: " + strings.Join(prompt.Langs, " or "), DefaultText: localeDefault},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return &usageError{msg: "prompt takes one dialect", try: "Try: autocoder prompt " + strings.Join(prompt.Dialects, "|")}
			}
			lang := c.String("lang")
			if lang == "" {
				lang = prompt.LocaleLang(os.Getenv)
			}
			text, err := prompt.Text(c.Args().First(), lang)
			if err != nil {
				return &usageError{msg: err.Error(), try: "Try: autocoder prompt " + strings.Join(prompt.Dialects, "|") + " --lang " + strings.Join(prompt.Langs, "|")}
			}
			_, err = fmt.Fprint(c.App.Writer, text)
			return err
		},
	}
}
