package searchreplace

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/autocoder/autocoder/step"
)

// Examples are the smallest correct block of each flavour, shown when a
// block could not be read.
var examples = map[string]string{
	Aider:   "src/app.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n",
	Cline:   "<replace_in_file>\n<path>src/app.py</path>\n<diff>\n------- SEARCH\n    return a - b\n=======\n    return a + b\n+++++++ REPLACE\n</diff>\n</replace_in_file>\n",
	RooDiff: "<apply_diff>\n<path>src/app.py</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:2\n-------\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n",
	Write:   "<write_to_file>\n<path>src/app.py</path>\n<content>\ndef add(a, b):\n    return a + b\n</content>\n</write_to_file>\n",
}

// Feedback answers the model in the convention of the tool it wrote for:
// aider's messages for aider's blocks (a failed block quoted back under
// "SEARCH/REPLACE block failed to match", with why and the nearest lines of
// the file), Cline's and Roo's "[tool for 'path'] Result:" tool results for
// their calls. Every answer says whether the block changed the file, and a
// block that could not be read is answered with its line, why, and the
// smallest correct example.
func Feedback(results []step.Result) []byte {
	var b strings.Builder
	failed, applied := 0, 0
	for _, r := range results {
		switch {
		case r.Step == nil && r.ParseErr != nil:
			failed++
		case r.Status == step.StatusFailed:
			failed++
		case r.Status == step.StatusApplied:
			applied++
		}
	}
	for i, r := range results {
		if i > 0 {
			b.WriteString("\n")
		}
		if r.Step == nil && r.ParseErr != nil {
			writeParseError(&b, r.ParseErr)
			continue
		}
		src, _ := r.Step.Source.(Source)
		if src.Flavour == "" || src.Flavour == Aider {
			writeAider(&b, r, src)
		} else {
			writeCall(&b, r, src)
		}
	}
	if failed > 0 {
		fmt.Fprintf(&b, "\n# %d block%s failed; %d applied.\n", failed, plural(failed), applied)
		if applied > 0 {
			b.WriteString("Don't re-send the applied ones.\n")
		}
		b.WriteString("Just reply with fixed versions of the blocks that failed.\n")
	}
	return []byte(b.String())
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func writeParseError(b *strings.Builder, e *step.ParseError) {
	flavour, _ := e.Source.(string)
	fmt.Fprintf(b, "# The block at line %d, column %d could not be read: nothing of it was applied.\n%s\n", e.Pos.Line, e.Pos.Col, e.Msg)
	if e.Quote != "" {
		fmt.Fprintf(b, "near: %s\n", e.Quote)
	}
	if e.Fix != "" {
		fmt.Fprintf(b, "hint: %s\n", e.Fix)
	}
	ex, ok := examples[flavour]
	if !ok {
		ex = examples[Aider]
	}
	fmt.Fprintf(b, "A correct block looks like this:\n\n%s", ex)
}

// path is the file the result is about.
func path(r step.Result, src Source) string {
	if src.Path != "" {
		return src.Path
	}
	for _, o := range r.Ops {
		if o.Status == step.StatusFailed {
			return o.Path
		}
	}
	for _, o := range r.Ops {
		return o.Path
	}
	if r.Step != nil && len(r.Step.Ops) > 0 {
		return r.Step.Ops[0].Path
	}
	return ""
}

// outcome is one sentence on what became of the step, the same words for
// every flavour.
func outcome(r step.Result, p string) string {
	short := r.Commit
	if len(short) > 12 {
		short = short[:12]
	}
	noop := step.StepOutcome(r) == step.OutcomeNoOp
	already := false // an edit already in the file, not a write whose file holds its content
	for _, o := range r.Ops {
		for _, rr := range o.Replaces {
			already = already || rr.AlreadyApplied
		}
	}
	if p == "" {
		p = "no file" // a step of programs only
	}
	switch r.Status {
	case step.StatusApplied:
		if short != "" {
			return fmt.Sprintf("Applied edit to %s (commit %s).", p, short)
		}
		return fmt.Sprintf("Applied edit to %s.", p)
	case step.StatusPlanned:
		return fmt.Sprintf("Would apply edit to %s (dry run: nothing changed).", p)
	case step.StatusRead:
		return fmt.Sprintf("Read %s.", p)
	case step.StatusUnchanged:
		switch {
		case noop:
			return fmt.Sprintf("No change to %s: the SEARCH and REPLACE texts are equal (a no-op; send only edits that change something).", p)
		case already:
			return fmt.Sprintf("No change to %s: the edit is already in the file.", p)
		}
		return fmt.Sprintf("No change to %s: it already has this content.", p)
	case step.StatusSkipped:
		return fmt.Sprintf("Not attempted (%s): an earlier block failed. Send it again after fixing that one.", p)
	case step.StatusRolledBack:
		return fmt.Sprintf("Rolled back (%s): it applied, then a later block failed and --atomic took the whole answer back.", p)
	case step.StatusFailed:
		return fmt.Sprintf("Failed (%s): nothing of this block was applied.", p)
	}
	return fmt.Sprintf("%s (%s).", r.Status, p)
}

// errorText is the error, its hint, and per op what the engine said.
func errorText(b *strings.Builder, r step.Result) {
	if r.Error != "" {
		fmt.Fprintf(b, "%s\n", r.Error)
	}
	if r.Hint != "" {
		fmt.Fprintf(b, "hint: %s\n", r.Hint)
	}
}

// details writes what the ops said (a dry run's diff, a read's content)
// and the programs.
func details(b *strings.Builder, r step.Result) {
	for _, o := range r.Ops {
		if o.Diff != "" {
			fmt.Fprintf(b, "```diff\n%s```\n", o.Diff)
		}
		for _, rr := range o.Replaces {
			if rr.Tier != "" && rr.Tier != "exact" && r.Status != step.StatusFailed {
				fmt.Fprintf(b, "Note: the SEARCH text of block %d matched lines %d-%d of %s only with tolerance (%s); copy the file's lines exactly next time.\n",
					rr.Index+1, rr.StartLine, rr.EndLine, o.Path, rr.Tier)
			}
		}
		trivial := o.Message == "replaced" || o.Message == "created" // the outcome says so already
		if o.Message != "" && !trivial && (o.Status == step.StatusRolledBack || r.Status != step.StatusFailed && r.Status != step.StatusSkipped) {
			fmt.Fprintf(b, "%s: %s\n", o.Path, o.Message)
		}
	}
	for _, pr := range r.Programs {
		fmt.Fprintf(b, "Program %s: %s (exit %d)\n", pr.Name, pr.Status, pr.ReturnCode)
		if pr.Stdout != "" {
			fmt.Fprintf(b, "stdout:\n%s\n", strings.TrimRight(pr.Stdout, "\n"))
		}
		if pr.Stderr != "" {
			fmt.Fprintf(b, "stderr:\n%s\n", strings.TrimRight(pr.Stderr, "\n"))
		}
		if pr.Error != "" {
			fmt.Fprintf(b, "error: %s\n", pr.Error)
		}
		if pr.Hint != "" {
			fmt.Fprintf(b, "hint: %s\n", pr.Hint)
		}
	}
}

// headline names a failure as aider's error classes do.
func headline(r step.Result) string {
	switch r.Reason {
	case step.ReasonNoMatch:
		return "SearchReplaceNoExactMatch: The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc"
	case step.ReasonAmbiguous:
		return "SearchReplaceAmbiguousMatch: The SEARCH section matches more than one place; it must match exactly one (quote more lines around the change)"
	case step.ReasonRefused:
		return "Refused: the safety policy does not allow this edit"
	}
	return "SearchReplaceFailed: the block could not be applied"
}

func writeAider(b *strings.Builder, r step.Result, src Source) {
	p := path(r, src)
	if r.Status != step.StatusFailed {
		fmt.Fprintf(b, "%s\n", outcome(r, p))
		details(b, r)
		return
	}
	verb := "failed to match"
	if r.Reason != step.ReasonNoMatch && r.Reason != step.ReasonAmbiguous {
		verb = "failed"
	}
	fmt.Fprintf(b, "# SEARCH/REPLACE block %s in %s!\n\n## %s\n", verb, p, headline(r))
	for _, blk := range failedBlocks(r, src) {
		fmt.Fprintf(b, "%s", blk)
	}
	b.WriteString("\n")
	errorText(b, r)
	fmt.Fprintf(b, "%s\n", outcome(r, p))
	details(b, r)
}

func writeCall(b *strings.Builder, r step.Result, src Source) {
	p := path(r, src)
	fmt.Fprintf(b, "[%s for '%s'] Result:\n", src.Flavour, p)
	if r.Status != step.StatusFailed {
		fmt.Fprintf(b, "%s\n", outcome(r, p))
		details(b, r)
		return
	}
	b.WriteString("The tool execution failed with the following error:\n<error>\n")
	if r.Reason == step.ReasonNoMatch || r.Reason == step.ReasonAmbiguous {
		for _, blk := range failedBlocks(r, src) {
			fmt.Fprintf(b, "The SEARCH block:\n%s", blk)
		}
		if r.Reason == step.ReasonNoMatch {
			b.WriteString("...does not match anything in the file.\n")
		} else {
			b.WriteString("...matches more than one place in the file.\n")
		}
	}
	errorText(b, r)
	b.WriteString("</error>\n")
	fmt.Fprintf(b, "%s The file was not changed: the whole tool call was taken back.\n", outcome(r, p))
	details(b, r)
}

// editN finds the matcher's "edit N:" in an error: the block that failed.
var editN = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bedit (\d+): `) })

// failedBlocks are the blocks to quote back for a failed step: the one the
// error names, or all of them.
func failedBlocks(r step.Result, src Source) []string {
	if m := editN().FindStringSubmatch(r.Error); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n >= 1 && n <= len(src.Blocks) {
			return src.Blocks[n-1 : n]
		}
	}
	return src.Blocks
}
