package main

import (
	"encoding/json"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/termsafe"
	"io"
	"os"
	"strings"

	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/txn"
	"github.com/urfave/cli/v2"
)

func applyCommand() *cli.Command {
	return &cli.Command{
		Name:      "apply",
		Usage:     "apply every instruction block of a response, one commit per step",
		ArgsUsage: "[FILE|-]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "change nothing; print each step's unified diff"},
			&cli.BoolFlag{Name: "atomic", Usage: "apply all steps or none"},
			&cli.StringFlag{Name: "branch", Usage: "work branch `NAME` (autocoder/ is prepended when missing)"},
			formatFlag,
			&cli.BoolFlag{Name: "allow-programs", Usage: "let the response run any program for this run (autocoder.toml [programs] otherwise decides)"},
			&cli.BoolFlag{Name: "clipboard", Usage: "read the response from the system clipboard and put the executor's answer back on it"},
			&cli.StringFlag{Name: "feedback", Usage: "write the executor's answer in the response's dialect to `FILE` (- for standard output)"},
		},
		Action: runApply,
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
	return "a block starts with #####-- (autocoder JSON), a ```mcp-request fence (FlyCode MCP) or a ~~~~~act fence (Axon); `autocoder parse FILE` shows what was found"
}

func runApply(c *cli.Context) error {
	f, err := format(c)
	if err != nil {
		return err
	}
	e, cfg, err := openEngineWith(c, c.String("branch"), c.Bool("allow-programs"))
	if err != nil {
		return err
	}
	defer e.Close()
	var text []byte
	if c.Bool("clipboard") {
		if c.NArg() > 0 {
			return &usageError{msg: "--clipboard reads the response from the clipboard, not from " + c.Args().First(),
				try: "Try: autocoder apply --clipboard (with the model's answer copied), or autocoder apply " + c.Args().First()}
		}
		text, err = readClipboard()
	} else {
		text, _, err = readInput(c, cfg.Apply.MaxResponseBytes)
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
			results = append(results, step.Result{ParseErr: it.Err, Status: step.StatusFailed,
				Error: it.Err.Error(), Hint: it.Err.Hint(), Class: step.ClassNoBlock, Reason: step.ReasonInvalid})
		}
		if err := writeFeedback(c, results); err != nil {
			return err
		}
		return reportUnreadable(c, f, err)
	}
	results := e.Run(c.Context, items, txn.RunOptions{Atomic: c.Bool("atomic"), DryRun: c.Bool("dry-run")})
	branch := currentBranch(e)
	if !strings.HasPrefix(branch, cfg.Apply.BranchPrefix) {
		branch = "" // not (or no longer) on a work branch
	}
	fail := failure(results)
	if err := writeFeedback(c, results); err != nil {
		return err
	}
	if f == "json" {
		writeJSON(c.App.Writer, map[string]any{"branch": branch, "dry_run": c.Bool("dry-run"),
			"results": jsonResults(results), "exit_code": report(io.Discard, fail)})
	} else {
		printResults(c.App.Writer, c.App.ErrWriter, branch, results, c.Bool("dry-run"), e.Repo.Root)
	}
	return fail
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
		writeJSON(c.App.Writer, map[string]any{"results": []any{}, "errors": err.errs, "exit_code": exitCode(err.Class())})
		return &reported{class: err.Class()}
	}
	return err
}

// jsonResult is a result as --format json writes it: with its class and
// exit code when it failed by an error of its own.
type jsonResult struct {
	step.Result
	Class string `json:"class,omitempty"`
	Code  int    `json:"code,omitempty"`
}

func jsonResults(rs []step.Result) []jsonResult {
	out := make([]jsonResult, len(rs))
	for i, r := range rs {
		out[i].Result = r
		if r.Status == step.StatusFailed && r.Reason != step.ReasonRolledBack {
			out[i].Class, out[i].Code = r.Class.String(), exitCode(r.Class)
		}
	}
	return out
}

func currentBranch(e *txn.Engine) string {
	h, err := e.Repo.ReadHEAD()
	if err != nil || h.Branch == "" {
		return ""
	}
	return strings.TrimPrefix(h.Branch, "refs/heads/")
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
		_, err := c.App.Writer.Write(fb)
		return err
	}
	if err := os.WriteFile(dest, fb, 0o666); err != nil {
		return fmt.Errorf("write feedback: %w", err)
	}
	return nil
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// printResults is the human output: one line per step, then what went wrong
// and what to do, with the response's line numbers.
func printResults(out, errw io.Writer, branch string, results []step.Result, dry bool, root string) {
	// The human output quotes the response and the programs it ran: on a
	// terminal their escape sequences must show, not act.
	out = termsafe.Writer{W: out}
	for _, r := range results {
		id := r.StepID
		if r.ParseErr != nil {
			id = fmt.Sprintf("(block at line %d)", r.ParseErr.Pos.Line)
		}
		commit := ""
		if len(r.Commit) >= 12 {
			commit = r.Commit[:12]
		}
		fmt.Fprintf(out, "%-9s  %-14s %-12s %s\n", r.Status, id, commit, describe(r, root))
		for _, op := range r.Ops {
			if dry && op.Diff != "" {
				fmt.Fprint(out, indent(op.Diff))
			}
			for _, m := range op.Replaces {
				if m.AlreadyApplied {
					fmt.Fprintf(out, "    %s: edit %d was already applied; nothing changed\n", op.Path, m.Index+1)
				} else if m.Tier != "" && m.Tier != "exact" {
					fmt.Fprintf(out, "    %s: edit %d matched lines %d-%d by the %s tier\n", op.Path, m.Index+1, m.StartLine, m.EndLine, m.Tier)
				}
			}
			if op.Status == step.StatusRead && op.Output != "" {
				fmt.Fprint(out, indent(op.Output))
			}
		}
		for _, pr := range r.Programs {
			fmt.Fprintf(out, "    program %s: %s (exit code %d)\n", pr.Name, pr.Status, pr.ReturnCode)
			if pr.Stdout != "" {
				fmt.Fprint(out, indent(pr.Stdout))
			}
			if pr.Stderr != "" {
				fmt.Fprint(out, indent(pr.Stderr))
			}
			if pr.Error != "" && pr.Status != step.ProgramRefused {
				fmt.Fprint(out, indent(pr.Error))
			}
			if pr.Status == step.ProgramRefused {
				// Not run, while the step's files applied: said where
				// errors go, with what to do.
				fmt.Fprintf(errw, "autocoder: error: step %s: program %s: %s\n", id, pr.Name, pr.Error)
				if pr.Hint != "" {
					fmt.Fprintf(errw, "autocoder: hint: %s\n", pr.Hint)
				}
			}
		}
		if r.ProgramCommit != "" {
			fmt.Fprintf(out, "    the files the programs changed: commit %s\n", r.ProgramCommit[:12])
		}
		if r.Status == step.StatusFailed && r.Error != "" {
			where := ""
			if r.Step != nil && r.Step.Pos.Line > 0 && !strings.Contains(r.Error, "(response line") {
				where = fmt.Sprintf(" (response line %d)", r.Step.Pos.Line)
			}
			fmt.Fprintf(errw, "autocoder: error: step %s%s: %s\n", id, where, r.Error)
			if r.Hint != "" {
				for _, line := range strings.Split(r.Hint, "\n") {
					fmt.Fprintf(errw, "autocoder: hint: %s\n", line)
				}
			}
		}
	}
	if branch != "" && !dry {
		fmt.Fprintf(out, "work branch: %s (review with git log, drop steps with autocoder undo)\n", branch)
	}
}

func describe(r step.Result, root string) string {
	if r.Step == nil {
		return ""
	}
	if r.Step.Finish {
		return "finish: " + r.Step.Summary
	}
	return txn.Subject(r.Step, root) // what its commit's subject says
}

func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if line == "" {
			continue
		}
		b.WriteString("    ")
		b.WriteString(line)
	}
	if !strings.HasSuffix(s, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}
