package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/autocoder/autocoder/protocol/report"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// interactive is apply -i: each step's diff (the --dry-run plan of that one
// step, against the repository as the steps before it left it), then the
// user's choice: apply it, skip it, or quit (the rest are skipped). The
// answers come from the terminal: golang.org/x/term tells a terminal from a
// pipe, so a script that pipes a response in gets a usage error instead of
// steps applied on answers read from its response.
func interactive(c *cli.Context, e *txn.Engine, items []step.Item) ([]step.Result, error) {
	in, ok := c.App.Reader.(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) || c.Args().First() == "-" || c.Args().First() == "" && !c.Bool("clipboard") {
		return nil, &usageError{msg: "apply -i asks on a terminal, and reads the response from a file or the clipboard",
			try: "Try: autocoder apply -i response.md, in a terminal"}
	}
	if c.Bool("atomic") || c.Bool("dry-run") {
		return nil, &usageError{msg: "apply -i decides step by step: it takes neither --atomic nor --dry-run", try: "Try: autocoder apply -i response.md"}
	}
	answers := bufio.NewReader(in)
	out, errw := c.App.Writer, c.App.ErrWriter
	var results []step.Result
	quit, failed := false, false
	for _, it := range items {
		if quit || failed {
			r := step.Result{Status: step.StatusSkipped, ParseErr: it.Err}
			if it.Step != nil {
				r.Step, r.StepID = it.Step, it.Step.ID
			}
			if quit {
				r.Error = "not applied: you quit before this step"
			}
			results = append(results, r)
			continue
		}
		plan, patch := e.DryRun(c.Context, []step.Item{it}, false)
		report.Run{DryRun: true, Results: plan, Patch: patch, StatusColor: colorful(errw), PatchColor: colorful(out),
			Subject: func(s *step.Step) string { return txn.Subject(s, e.Repo.Root) }}.Text(out, errw)
		if plan[0].Status == step.StatusFailed {
			results = append(results, plan[0])
			failed = true
			continue
		}
		choice := ask(errw, answers, fmt.Sprintf("apply step %s? [a]pply, [s]kip, [q]uit: ", it.Step.ID))
		switch choice {
		case "a":
			r := e.Run(c.Context, []step.Item{it}, txn.RunOptions{})
			results = append(results, r...)
			failed = r[0].Status == step.StatusFailed
		case "s":
			results = append(results, step.Result{Step: it.Step, StepID: it.Step.ID, Status: step.StatusSkipped, Error: "not applied: you skipped it"})
		default:
			quit = true
			results = append(results, step.Result{Step: it.Step, StepID: it.Step.ID, Status: step.StatusSkipped, Error: "not applied: you quit here"})
		}
	}
	return results, nil
}

// ask reads the user's choice: a, s or q (end of input is q), asking again
// after anything else.
func ask(w interface{ Write([]byte) (int, error) }, r *bufio.Reader, question string) string {
	for {
		fmt.Fprint(w, question)
		line, err := r.ReadString('\n')
		switch a := strings.ToLower(strings.TrimSpace(line)); {
		case a == "a" || a == "apply" || a == "y" || a == "yes":
			return "a"
		case a == "s" || a == "skip" || a == "n" || a == "no":
			return "s"
		case a == "q" || a == "quit" || err != nil:
			return "q"
		}
	}
}
