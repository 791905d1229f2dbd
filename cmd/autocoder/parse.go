package main

import (
	"fmt"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/termsafe"
	"io"
	"strings"

	"github.com/autocoder/autocoder/protocol"
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
			steps, errs := 0, 0
			for _, it := range items {
				if it.Step != nil {
					steps++
				} else {
					errs++
				}
			}
			switch {
			case steps == 0:
				fail = &reported{class: step.ClassNoBlock}
			case errs > 0:
				fail = &reported{class: step.ClassStepFailed}
			}
			if f == "json" {
				if items == nil {
					items = []step.Item{}
				}
				writeJSON(c.App.Writer, map[string]any{"items": items, "steps": steps, "errors": errs})
			} else {
				printItems(termsafe.Writer{W: c.App.Writer}, items)
				if len(items) == 0 {
					fmt.Fprintln(c.App.Writer, "no instruction block found")
				}
			}
			return fail
		},
	}
}

func printItems(w io.Writer, items []step.Item) {
	for _, it := range items {
		if pe := it.Err; pe != nil {
			fmt.Fprintf(w, "error  %s block at line %d, column %d: %s\n", pe.Dialect, pe.Pos.Line, pe.Pos.Col, pe.Msg)
			if pe.Quote != "" {
				fmt.Fprintf(w, "       near: %q\n", pe.Quote)
			}
			if pe.Fix != "" {
				fmt.Fprintf(w, "       hint: %s\n", pe.Fix)
			}
			continue
		}
		s := it.Step
		fmt.Fprintf(w, "step   %s (%s, line %d)", s.ID, s.Dialect, s.Pos.Line)
		if s.Reason != "" {
			r, _, _ := strings.Cut(strings.TrimSpace(s.Reason), "\n")
			fmt.Fprintf(w, ": %s", r)
		}
		fmt.Fprintln(w)
		if s.Finish {
			fmt.Fprintf(w, "       finish: %s\n", s.Summary)
		}
		for _, ck := range s.Checks {
			fmt.Fprintf(w, "       check %s %s%s (line %d)\n", ck.Kind, strings.Join(ck.Paths, " "), ck.Want, ck.Pos.Line)
		}
		for _, op := range s.Ops {
			fmt.Fprintf(w, "       %s %s", op.Kind, op.Path)
			if op.To != "" {
				fmt.Fprintf(w, " -> %s", op.To)
			}
			if len(op.Content) > 0 {
				fmt.Fprintf(w, " (%d bytes)", len(op.Content))
			}
			if len(op.Edits) > 0 {
				fmt.Fprintf(w, " (%d edit(s))", len(op.Edits))
			}
			fmt.Fprintf(w, " (line %d)\n", op.Pos.Line)
		}
		for _, p := range s.Programs {
			fmt.Fprintf(w, "       run %s", p.Command)
			if len(p.Args) > 0 {
				fmt.Fprintf(w, " %s", strings.Join(p.Args, " "))
			}
			fmt.Fprintf(w, " (line %d)\n", p.Pos.Line)
		}
		for _, r := range s.Repairs {
			fmt.Fprintf(w, "       repaired at line %d, column %d: %s\n", r.Pos.Line, r.Pos.Col, r.What)
		}
	}
}
