package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/gitops"
)

func trustCommand() *cli.Command {
	return &cli.Command{
		Name:  "trust",
		Usage: "trust the repository's autocoder.toml as it is now: its programs, verify command and model settings count",
		Description: "A repository's autocoder.toml is written by whoever wrote the repository. Its settings that run code or\n" +
			"send secrets ([programs] enabled, allow and env, [verify] command, [model] base_url and api_key_env)\n" +
			"count only once you trusted the file with this exact content; any change makes it untrusted again.\n" +
			"Limits and deny patterns always count, but only to narrow your own settings.",
		CustomHelpTemplate: examples(
			"autocoder trust --show   # what the file would enable, and whether it is trusted",
			"autocoder trust          # trust it as it is now",
			"autocoder untrust        # forget that trust",
		),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "show", Usage: "change nothing: say what the file sets, what trusting it would enable, and whether it is trusted"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return &usageError{msg: "trust takes no arguments", try: "Try: autocoder trust --show, in the repository (or autocoder -C DIR trust)"}
			}
			dirs := config.UserDirs()
			s, err := loadSettings(c, dirs)
			if err != nil {
				return err
			}
			if s.RepoFile == "" {
				return &usageError{msg: "this repository has no " + config.FileName + ": there is nothing to trust",
					try: "your own settings go in " + orNone(dirs.UserFile()) + ", which needs no trust"}
			}
			if c.Bool("show") {
				showTrust(c.App.Writer, s)
				return nil
			}
			if err := dirs.Trust(s.RepoFile, s.RepoSum); err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "trusted %s (sha256 %s)\n", s.RepoFile, s.RepoSum[:12])
			if w := widening(s); len(w) > 0 {
				fmt.Fprintf(c.App.Writer, "it now enables:\n")
				for _, st := range w {
					fmt.Fprintf(c.App.Writer, "  %s\n", st)
				}
			} else {
				fmt.Fprintf(c.App.Writer, "it sets nothing that runs code or sends a secret\n")
			}
			fmt.Fprintf(c.App.Writer, "any change to the file makes it untrusted again; autocoder untrust forgets it\n")
			return nil
		},
	}
}

// loadSettings reads the configuration of the repository around -C (or
// the current folder), without opening the engine: trust takes no lock and
// recovers nothing.
func loadSettings(c *cli.Context, dirs config.Dirs) (config.Settings, error) {
	dir := c.String("C")
	if dir == "" {
		dir = "."
	}
	repo, err := gitops.Open(dir)
	if err != nil {
		return config.Settings{}, err
	}
	defer repo.Close()
	return config.Load(repo.Root, dirs)
}

func orNone(s string) string {
	if s == "" {
		return "the user-level config.toml (no config folder is known here)"
	}
	return s
}

// widening is what the repository's file sets that runs code or sends a
// secret: what trusting it enables.
func widening(s config.Settings) []config.Setting {
	var out []config.Setting
	for _, st := range s.RepoSets {
		if config.KindOf(st.Key) == config.Widens {
			out = append(out, st)
		}
	}
	return out
}

// showTrust says what the repository's file sets, by kind, and whether it
// is trusted.
func showTrust(w io.Writer, s config.Settings) {
	state := "not trusted: the settings below that run code or send secrets are ignored"
	if s.Trusted {
		state = "trusted with this content"
	}
	fmt.Fprintf(w, "%s (sha256 %s): %s\n", s.RepoFile, s.RepoSum[:12], state)
	for _, g := range []struct {
		kind  config.Kind
		title string
	}{
		{config.Widens, "runs code or sends secrets (counts only when trusted)"},
		{config.Restricts, "limits and deny patterns (always count, but untrusted only narrow your own)"},
		{config.Chooses, "choices (always count)"},
	} {
		var lines []string
		for _, st := range s.RepoSets {
			if config.KindOf(st.Key) == g.kind {
				lines = append(lines, "  "+st.String())
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(w, "%s:\n%s\n", g.title, strings.Join(lines, "\n"))
		}
	}
	if len(widening(s)) == 0 {
		fmt.Fprintf(w, "it sets nothing that runs code or sends a secret: trusting it changes nothing\n")
	}
}
