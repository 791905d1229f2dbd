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
func interactive(c *cli.Context, e *txn.Engine, items []step.Item) (txn.Report, error) {
	in, ok := c.App.Reader.(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) || c.Args().First() == "-" || c.Args().First() == "" && !c.Bool("clipboard") {
		return txn.Report{}, &usageError{msg: "apply -i asks on a terminal, and reads the response from a file or the clipboard",
			try: "Try: autocoder apply -i response.md, in a terminal"}
	}
	if c.Bool("atomic") || c.Bool("dry-run") {
		return txn.Report{}, &usageError{msg: "apply -i decides step by step: it takes neither --atomic nor --dry-run", try: "Try: autocoder apply -i response.md"}
	}
	answers := lines(in)
	out, errw := c.App.Writer, c.App.ErrWriter
	// Ctrl-C or SIGTERM (main's context) ends the questions: nothing
	// undecided is applied.
	return e.Interactive(c.Context, items, func(plan txn.Report) txn.Choice {
		report.Run{DryRun: true, Results: plan.Results, Patch: plan.Patch, StatusColor: colorful(errw), PatchColor: colorful(out),
			Subject: e.Subject}.Text(out, errw)
		switch ask(c.Context, errw, answers, fmt.Sprintf("apply step %s? [a]pply, [s]kip, [q]uit: ", plan.Results[0].StepID)) {
		case "":
			return txn.ChoiceInterrupted
		case "a":
			return txn.ChoiceApply
		case "s":
			return txn.ChoiceSkip
		}
		return txn.ChoiceQuit
	}, oneShot), nil
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
