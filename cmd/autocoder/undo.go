package main

import (
	"fmt"
	"strconv"

	"github.com/autocoder/autocoder/txn"
	"github.com/urfave/cli/v2"
)

func undoCommand() *cli.Command {
	return &cli.Command{
		Name:      "undo",
		Usage:     "drop the newest N steps (default 1) of the current work branch",
		ArgsUsage: "[N]",
		Flags: []cli.Flag{formatFlag, &cli.BoolFlag{Name: "force",
			Usage: "undo also steps that the branch's upstream or the branch it was made from already contains"}},
		Action: func(c *cli.Context) error {
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
			e, _, err := openEngine(c, "")
			if err != nil {
				return err
			}
			defer e.Close()
			undone, err := e.Undo(n, txn.UndoOptions{Force: c.Bool("force")})
			if err != nil {
				return err
			}
			if f == "json" {
				writeJSON(c.App.Writer, map[string]any{"undone": undone})
				return nil
			}
			for _, u := range undone {
				fmt.Fprintf(c.App.Writer, "undone  %-14s %s %s\n", u.StepID, u.Commit[:12], u.Subject)
			}
			fmt.Fprintln(c.App.Writer, "autocoder redo puts the most recently undone step back")
			return nil
		},
	}
}

func redoCommand() *cli.Command {
	return &cli.Command{
		Name:  "redo",
		Usage: "put back the most recently undone step",
		Flags: []cli.Flag{formatFlag},
		Action: func(c *cli.Context) error {
			f, err := format(c)
			if err != nil {
				return err
			}
			if c.NArg() > 0 {
				return &usageError{msg: "redo takes no arguments", try: "Try: autocoder redo"}
			}
			e, _, err := openEngine(c, "")
			if err != nil {
				return err
			}
			defer e.Close()
			r, err := e.Redo()
			if err != nil {
				return err
			}
			if f == "json" {
				writeJSON(c.App.Writer, map[string]any{"redone": r})
				return nil
			}
			fmt.Fprintf(c.App.Writer, "redone  %-14s %s %s\n", r.StepID, r.Commit[:12], r.Subject)
			return nil
		},
	}
}

func logCommand() *cli.Command {
	return &cli.Command{
		Name:  "log",
		Usage: "list the steps on the current work branch, newest first",
		Flags: []cli.Flag{formatFlag},
		Action: func(c *cli.Context) error {
			f, err := format(c)
			if err != nil {
				return err
			}
			e, _, err := openEngine(c, "")
			if err != nil {
				return err
			}
			defer e.Close()
			branch, entries, err := e.Log()
			if err != nil {
				return err
			}
			if f == "json" {
				if entries == nil {
					writeJSON(c.App.Writer, map[string]any{"branch": branch, "steps": []any{}})
				} else {
					writeJSON(c.App.Writer, map[string]any{"branch": branch, "steps": entries})
				}
				return nil
			}
			steps := 0
			for _, en := range entries {
				if en.Kind == "step" {
					steps++
				}
			}
			fmt.Fprintf(c.App.Writer, "work branch %s: %d step(s)", branch, steps)
			if own := len(entries) - steps; own > 0 {
				fmt.Fprintf(c.App.Writer, " and %d commit(s) of your own", own)
			}
			fmt.Fprintln(c.App.Writer)
			for _, en := range entries {
				id := en.StepID
				if en.Kind == "user" {
					id = "(yours)"
				}
				fmt.Fprintf(c.App.Writer, "%s  %-14s %s  %s\n", en.Commit[:12], id, en.Date, en.Subject)
			}
			return nil
		},
	}
}
