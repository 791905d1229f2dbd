package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/autocoder/autocoder/report"
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
	answers := lines(in)
	out, errw := c.App.Writer, c.App.ErrWriter
	var results []step.Result
	quit, failed, interrupted := false, false, false
	for _, it := range items {
		// Ctrl-C or SIGTERM (main's context) ends the questions: nothing
		// undecided is applied.
		interrupted = interrupted || c.Context.Err() != nil
		if quit || failed || interrupted {
			r := step.Result{Status: step.StatusSkipped, ParseErr: it.Err}
			if it.Step != nil {
				r.Step, r.StepID = it.Step, it.Step.ID
			}
			switch {
			case interrupted:
				r.Error = "not applied: interrupted before this step"
			case quit:
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
		choice := ask(c.Context, errw, answers, fmt.Sprintf("apply step %s? [a]pply, [s]kip, [q]uit: ", it.Step.ID))
		switch choice {
		case "":
			interrupted = true
			results = append(results, step.Result{Step: it.Step, StepID: it.Step.ID, Status: step.StatusSkipped, Error: "not applied: interrupted at its question"})
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

// lines reads r line by line in a goroutine of its own and sends each line
// when asked for it; the channel closes at the end of input. A read of a
// terminal cannot be cancelled, so a question that must end on Ctrl-C
// waits on this channel and the context, never on the read itself (the
// goroutine, blocked in the read, ends with the process).
func lines(r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				ch <- line
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// ask reads the user's choice: a, s or q (end of input is q), asking again
// after anything else; "" when ctx ends first (Ctrl-C, SIGTERM).
func ask(ctx context.Context, w io.Writer, answers <-chan string, question string) string {
	for {
		fmt.Fprint(w, question)
		var line string
		var ok bool
		select {
		case <-ctx.Done():
			fmt.Fprintln(w) // the report starts on a line of its own, not after the question
			return ""
		case line, ok = <-answers:
		}
		switch a := strings.ToLower(strings.TrimSpace(line)); {
		case !ok || a == "q" || a == "quit":
			return "q"
		case a == "a" || a == "apply" || a == "y" || a == "yes":
			return "a"
		case a == "s" || a == "skip" || a == "n" || a == "no":
			return "s"
		}
	}
}
