package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	lib "github.com/autocoder/autocoder"
	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/report"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/termsafe"
	"github.com/autocoder/autocoder/txn"
)

func applyCommand() *cli.Command {
	return &cli.Command{
		Name:      "apply",
		Usage:     "apply every instruction block of a response, one commit per step",
		ArgsUsage: "[FILE|-]",
		CustomHelpTemplate: examples(
			"autocoder apply response.md                       # every block, one commit per step",
			"xclip -o | autocoder apply -                      # the response on standard input",
			"autocoder apply --dry-run response.md > p.patch   # change nothing: the patch (git apply p.patch)",
			"autocoder apply --feedback answer.md response.md  # the answer for the model, in its dialect",
			"autocoder apply --format json response.md         # for a script: the results as JSON",
			"autocoder apply --worktree response.md            # in a worktree of its own: your checkout is not touched",
		),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "change nothing; print the patch the steps would make (git apply accepts it) on standard output, the steps and the programs they would run on standard error"},
			&cli.BoolFlag{Name: "atomic", Usage: "apply all steps or none"},
			&cli.StringFlag{Name: "branch", Usage: "work branch `NAME` (autocoder/ is prepended when missing)"},
			formatFlag(),
			&cli.BoolFlag{Name: "allow-programs", Usage: "let the response run any program for this run (autocoder.toml [programs] otherwise decides)"},
			&cli.BoolFlag{Name: "interactive", Aliases: []string{"i"}, Usage: "show each step's diff, then apply, skip or quit (needs a terminal)"},
			&cli.BoolFlag{Name: "clipboard", Usage: "read the response from the system clipboard and put the executor's answer back on it"},
			quietFlag(),
			&cli.StringFlag{Name: "feedback", Usage: "write the executor's answer in the response's dialect to `FILE` (- for standard output, which then holds it alone: the report goes to standard error)"},
			worktreeFlag(),
		},
		Action: func(c *cli.Context) error {
			return inWorktree(c, c.String("C"), func(string) error { return runApply(c) })
		},
	}
}

// noBlocksError is a response with no readable instruction block.
type noBlocksError struct{ errs []*step.ParseError }

func (e *noBlocksError) Error() string {
	if len(e.errs) == 0 {
		return "no instruction block found in the response"
	}
	parts := make([]string, len(e.errs))
	for i, pe := range e.errs {
		parts[i] = pe.Error()
	}
	return "no readable instruction block: " + strings.Join(parts, "; ")
}

// Class is no block: nothing was applied.
func (e *noBlocksError) Class() step.Class { return step.ClassNoBlock }

func (e *noBlocksError) Hint() string {
	if len(e.errs) > 0 && e.errs[0].Fix != "" {
		return e.errs[0].Fix
	}
	return protocol.Reads + "; `autocoder parse FILE` shows what was found"
}

// oneShot is why a program that keeps running (keep_running) ends with
// apply, in its answer.
const oneShot = "stopped: autocoder apply is one shot, so a program that keeps running ends with it (under autocoder run it runs on across turns)."

func runApply(c *cli.Context) (err error) {
	f, err := format(c)
	if err != nil {
		return err
	}
	e, err := openEngineWith(c, lib.Options{Branch: c.String("branch"), AllowPrograms: c.Bool("allow-programs")})
	if err != nil {
		return err
	}
	defer closeEngine(c, e.Engine, &err)
	var text []byte
	if c.Bool("clipboard") {
		if c.NArg() > 0 {
			return &usageError{msg: "--clipboard reads the response from the clipboard, not from " + c.Args().First(),
				try: "Try: autocoder apply --clipboard (with the model's answer copied), or autocoder apply " + c.Args().First()}
		}
		text, err = readClipboard()
	} else {
		text, _, err = readInput(c, e.Settings.Apply.MaxResponseBytes)
	}
	if err != nil {
		return err
	}
	items := protocol.Parse(text)
	if err := readable(items); err != nil {
		// The model still gets its answer: each unreadable block in its
		// own dialect (an MCP request's error carries the request's id).
		var results []step.Result
		for _, it := range items {
			results = append(results, step.Unreadable(it.Err, true))
		}
		if err := writeFeedback(c, results); err != nil {
			return err
		}
		return reportUnreadable(c, f, err)
	}
	var rep txn.Report
	if c.Bool("interactive") {
		if rep, err = interactive(c, e.Engine, items); err != nil {
			return err
		}
	} else {
		rep = e.Execute(c.Context, items, txn.RunOptions{Atomic: c.Bool("atomic"), DryRun: c.Bool("dry-run"), StopLive: oneShot})
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(c.App.ErrWriter, "autocoder: warning: %s\n", w.Msg)
		fmt.Fprintf(c.App.ErrWriter, "autocoder: hint: %s\n", w.Hint)
	}
	results := rep.Results
	fail := failure(results)
	if err := writeFeedback(c, results); err != nil {
		return err
	}
	out := report.Run{Branch: rep.Branch, DryRun: c.Bool("dry-run"), Results: results, Code: exitOf(fail),
		Subject: e.Subject, Patch: rep.Patch, PatchRaw: !stdoutTerminal(c) && c.String("feedback") != "-",
		Allowed:     e.Programs.Allowed,
		RefusedHint: e.Programs.RefusedHint("apply"),
		Quiet:       c.Bool("quiet"), SwitchedFrom: rep.From, Earlier: rep.Earlier, StartCommit: rep.StartCommit}
	// The step lines go where the report goes, but a dry run's go to
	// standard error; the patch goes where the report goes.
	lines := reportWriter(c)
	if out.DryRun {
		lines = c.App.ErrWriter
	}
	out.StatusColor, out.PatchColor = colorful(lines), colorful(reportWriter(c))
	if f == "json" {
		out.JSON(reportWriter(c))
	} else {
		out.Text(reportWriter(c), c.App.ErrWriter)
	}
	return fail
}

// reportWriter is where apply's report goes: standard output, or standard
// error when --feedback - puts the feedback there (standard output then
// holds the feedback alone, a --format json report included).
func reportWriter(c *cli.Context) io.Writer {
	if c.String("feedback") == "-" {
		return c.App.ErrWriter
	}
	return c.App.Writer
}

// stdoutTerminal reports whether the app's standard output is a terminal.
func stdoutTerminal(c *cli.Context) bool {
	f, ok := c.App.Writer.(*os.File)
	return ok && isTerminal(f)
}

// readable is nil when at least one block could be read.
func readable(items []step.Item) *noBlocksError {
	var errs []*step.ParseError
	for _, it := range items {
		if it.Step != nil {
			return nil
		}
		errs = append(errs, it.Err)
	}
	return &noBlocksError{errs: errs}
}

func reportUnreadable(c *cli.Context, f string, err *noBlocksError) error {
	if f == "json" {
		report.Unreadable(reportWriter(c), err.errs, err.Class().ExitCode(), err.Error(), err.Hint())
		return &reported{class: err.Class()}
	}
	return err
}

func writeFeedback(c *cli.Context, results []step.Result) error {
	dest := c.String("feedback")
	if c.Bool("clipboard") && !c.Bool("dry-run") {
		if err := writeClipboard(protocol.Feedback(results)); err != nil {
			return err
		}
		fmt.Fprintln(c.App.ErrWriter, "autocoder: the executor's answer is on the clipboard: paste it into the chat")
	}
	if dest == "" {
		return nil
	}
	fb := protocol.Feedback(results)
	if dest == "-" {
		// On standard output the feedback reaches a terminal as the rest
		// of the output does, and Axon's is plain text that quotes the
		// response: its escape sequences are shown, not obeyed. The model
		// loses nothing it could use; a file keeps the bytes as they are.
		_, err := termsafe.Writer{W: c.App.Writer}.Write(fb)
		return err
	}
	if err := os.WriteFile(dest, fb, 0o666); err != nil {
		return fmt.Errorf("write feedback: %w", err)
	}
	return nil
}
