package main

import (
	"fmt"
	"path/filepath"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/gitops"
	"github.com/urfave/cli/v2"
)

func untrustCommand() *cli.Command {
	return &cli.Command{
		Name:  "untrust",
		Usage: "forget the trust of the repository's autocoder.toml: its programs, verify command and model settings stop counting",
		CustomHelpTemplate: examples(
			"autocoder untrust            # in the repository",
			"autocoder -C ~/src/x untrust # another one",
		),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return &usageError{msg: "untrust takes no arguments", try: "Try: autocoder untrust, in the repository (or autocoder -C DIR untrust)"}
			}
			dir := c.String("C")
			if dir == "" {
				dir = "."
			}
			repo, err := gitops.Open(dir)
			if err != nil {
				return err
			}
			// The file need not exist, nor parse: its trust is forgotten
			// by its path.
			name := filepath.Join(repo.Root, config.FileName)
			repo.Close()
			forgot, err := config.UserDirs().Untrust(name)
			if err != nil {
				return err
			}
			if forgot {
				fmt.Fprintf(c.App.Writer, "forgot the trust of %s: its settings that run code or send secrets are ignored again\n", name)
			} else {
				fmt.Fprintf(c.App.Writer, "%s was not trusted: nothing changed\n", name)
			}
			return nil
		},
	}
}
