package main

import (
	"fmt"
	"os"
	"path/filepath"

	lib "github.com/autocoder/autocoder"

	"github.com/urfave/cli/v2"

	"github.com/autocoder/autocoder/bridge"
	"github.com/autocoder/autocoder/gitops"
)

func bridgeCommand() *cli.Command {
	return &cli.Command{
		Name:      "bridge",
		Usage:     "the browser extension's native-messaging host (the browser starts it); install it, and register repositories",
		ArgsUsage: "(the browser passes the caller's origin)",
		CustomHelpTemplate: examples(
			"autocoder bridge install                   # for every browser of yours (or --browser chrome)",
			"autocoder bridge add ~/src/project         # let the extension act on this repository",
			"autocoder bridge list                      # the repositories it may act on",
		),
		// The browser passes its own arguments (Chromium on Windows adds
		// --parent-window=N): they are the host's to check, not flags.
		SkipFlagParsing: true,
		Subcommands: []*cli.Command{
			bridgeInstallCommand(false),
			bridgeInstallCommand(true),
			{
				Name: "add", Usage: "let the browser extension act on the repository at PATH", ArgsUsage: "PATH",
				CustomHelpTemplate: examples(
					"autocoder bridge add .                          # the repository you are in",
					"autocoder bridge add --name web ~/src/project   # known to the extension as web",
				),
				Flags: []cli.Flag{&cli.StringFlag{Name: "name", Usage: "the `NAME` the extension knows it by (default: its folder's name)"}},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return &usageError{msg: "bridge add takes one PATH", try: "Try: autocoder bridge add ~/src/project"}
					}
					repo, err := gitops.Open(c.Args().First())
					if err != nil {
						return err
					}
					root := repo.Root
					repo.Close()
					reg, err := loadRegistry()
					if err != nil {
						return err
					}
					rp, err := reg.Add(c.String("name"), root)
					if err != nil {
						return err
					}
					fmt.Fprintf(c.App.Writer, "registered %s as %s (in %s)\n", rp.Path, rp.Name, reg.Path)
					return nil
				},
			},
			{
				Name: "list", Usage: "list the repositories the browser extension may act on",
				CustomHelpTemplate: examples("autocoder bridge list   # NAME and folder, one a line"),
				Action: func(c *cli.Context) error {
					reg, err := loadRegistry()
					if err != nil {
						return err
					}
					for _, rp := range reg.Repositories {
						fmt.Fprintf(c.App.Writer, "%s\t%s\n", rp.Name, rp.Path)
					}
					return nil
				},
			},
			{
				Name: "remove", Usage: "stop the browser extension acting on the repository NAME", ArgsUsage: "NAME",
				CustomHelpTemplate: examples("autocoder bridge remove web   # the extension can no longer act on it"),
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return &usageError{msg: "bridge remove takes one NAME", try: "Try: autocoder bridge list, then autocoder bridge remove NAME"}
					}
					reg, err := loadRegistry()
					if err != nil {
						return err
					}
					return reg.Remove(c.Args().First())
				},
			},
		},
		Action: func(c *cli.Context) error {
			if a := c.Args(); a.Len() == 0 || a.First() == "-h" || a.First() == "--help" {
				// A person, not a browser: what the command is for.
				return cli.ShowSubcommandHelp(c)
			}
			path, err := bridge.RegistryPath()
			if err != nil {
				return err
			}
			return bridge.Serve(c.Context, c.Args().Slice(), c.App.Reader, c.App.Writer, bridge.Options{
				// As apply, with what autocoder.toml allows: the browser
				// has no flag that allows more.
				Engine:   lib.Options{LockWait: commandLockWait, Log: c.App.ErrWriter},
				Registry: path,
				Log:      c.App.ErrWriter,
			})
		},
	}
}

func loadRegistry() (*bridge.Registry, error) {
	path, err := bridge.RegistryPath()
	if err != nil {
		return nil, err
	}
	return bridge.LoadRegistry(path)
}

// bridgeInstallCommand is bridge install, or bridge uninstall.
func bridgeInstallCommand(uninstall bool) *cli.Command {
	name, usage := "install", "write the host manifest where the browser reads it, naming this program"
	if uninstall {
		name, usage = "uninstall", "remove the host manifest that bridge install wrote"
	}
	ex := examples("autocoder bridge install                               # every browser with a profile here",
		"autocoder bridge install --browser firefox",
		"autocoder bridge install --user-data-dir ~/chrome-profile   # a browser started with --user-data-dir")
	if uninstall {
		ex = examples("autocoder bridge uninstall --browser chrome   # or every browser, without --browser")
	}
	return &cli.Command{
		Name: name, Usage: usage, CustomHelpTemplate: ex,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "browser", Usage: "`BROWSER`: chrome, chromium, edge, brave or firefox (default: every one with a profile here)"},
			&cli.StringFlag{Name: "user-data-dir", Usage: "the profile folder `DIR` of a browser started with --user-data-dir"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return &usageError{msg: "bridge " + name + " takes no arguments", try: "Try: autocoder bridge " + name + " --browser chrome"}
			}
			targets, err := bridge.Targets(c.String("browser"), c.String("user-data-dir"))
			if err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			if real, err := filepath.EvalSymlinks(exe); err == nil {
				exe = real
			}
			for _, t := range targets {
				if uninstall {
					had, err := bridge.Uninstall(t)
					if err != nil {
						return err
					}
					if had {
						fmt.Fprintf(c.App.Writer, "%s: removed %s\n", t.Browser, t.File)
					}
					continue
				}
				if err := bridge.Install(t, exe); err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "%s: wrote %s (the browser starts %s)\n", t.Browser, t.File, exe)
			}
			if !uninstall {
				if reg, err := loadRegistry(); err == nil && len(reg.Repositories) == 0 {
					fmt.Fprintln(c.App.Writer, "next: register a repository with autocoder bridge add PATH")
				}
			}
			return nil
		},
	}
}
