package main

import (
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/autocoder/autocoder/report"
	"github.com/autocoder/autocoder/txn"
)

func undoCommand() *cli.Command {
	return &cli.Command{
		Name:      "undo",
		Usage:     "drop the newest N steps (default 1) of the current work branch",
		ArgsUsage: "[N]",
		CustomHelpTemplate: examples(
			"autocoder undo      # drop the newest step",
			"autocoder undo 3    # drop the newest three",
			"autocoder undo --branch autocoder/main-2   # on a session's branch, from here",
		),
		Flags: []cli.Flag{formatFlag(), quietFlag(), &cli.BoolFlag{Name: "force",
			Usage: "undo also steps that the branch's upstream or the branch it was made from already contains"}, viewFlag()},
		Action: func(c *cli.Context) (err error) {
			f, err := format(c)
			if err != nil {
				return err
			}
			n := 1
			if c.NArg() > 1 {
				return &usageError{msg: "too many arguments", try: "Try: autocoder undo [N]"}
			}
			if c.NArg() == 1 {
				if n, err = strconv.Atoi(c.Args().First()); err != nil || n < 1 {
					return &usageError{msg: "N must be a positive number, not " + strconv.Quote(c.Args().First()), try: "Try: autocoder undo 2"}
				}
			}
			e, err := openView(c, true)
			if err != nil {
				return err
			}
			defer closeEngine(c, e.Engine, &err)
			undone, err := e.Undo(n, txn.UndoOptions{Force: c.Bool("force")})
			if err != nil {
				return err
			}
			if f == "json" {
				return report.UndoneJSON(c.App.Writer, undone)
			}
			if !c.Bool("quiet") {
				report.Undone(c.App.Writer, undone)
			}
			return nil
		},
	}
}

func redoCommand() *cli.Command {
	return &cli.Command{
		Name:  "redo",
		Usage: "put back the most recently undone step",
		CustomHelpTemplate: examples(
			"autocoder undo && autocoder redo   # drop the newest step, then put it back",
		),
		Flags: []cli.Flag{formatFlag(), quietFlag(), viewFlag()},
		Action: func(c *cli.Context) (err error) {
			f, err := format(c)
			if err != nil {
				return err
			}
			if c.NArg() > 0 {
				return &usageError{msg: "redo takes no arguments", try: "Try: autocoder redo"}
			}
			e, err := openView(c, true)
			if err != nil {
				return err
			}
			defer closeEngine(c, e.Engine, &err)
			r, err := e.Redo()
			if err != nil {
				return err
			}
			if f == "json" {
				return report.RedoneJSON(c.App.Writer, r)
			}
			if !c.Bool("quiet") {
				report.Redone(c.App.Writer, r)
			}
			return nil
		},
	}
}

func logCommand() *cli.Command {
	return &cli.Command{
		Name:  "log",
		Usage: "list the steps on the current work branch, newest first",
		CustomHelpTemplate: examples(
			"autocoder log                  # the steps, newest first",
			"autocoder log --format json    # for a script",
			"autocoder log --branch main-2  # a session's branch (autocoder sessions lists them)",
		),
		Flags: []cli.Flag{formatFlag(), viewFlag()},
		Action: func(c *cli.Context) (err error) {
			f, err := format(c)
			if err != nil {
				return err
			}
			e, err := openView(c, false)
			if err != nil {
				return err
			}
			defer closeEngine(c, e.Engine, &err)
			branch, entries, err := e.Log()
			if err != nil {
				return err
			}
			if f == "json" {
				return report.LogJSON(c.App.Writer, branch, entries)
			}
			report.Log(c.App.Writer, branch, entries)
			return nil
		},
	}
}
