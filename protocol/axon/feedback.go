package axon

import (
	"fmt"
	"github.com/autocoder/autocoder/step"
	"strings"
)

// Feedback writes the executor's answer to an Axon plan: a plain-text report
// a model reads before its next plan. The Axon prompt defines no answer
// format, so this one aims at being unambiguous to a model: one header line
// with the counts, then one paragraph per step or unreadable block, in plan
// order, each starting with its step ID (or "error") in brackets and its
// status; errors come with the hint that says what to write instead; data a
// read produced (file content, command output, a dry-run diff) sits in a
// tilde-fenced block longer than any tilde run inside it, so it can never
// close early.
func Feedback(results []step.Result) []byte {
	var b strings.Builder
	b.WriteString(header(results))
	for _, r := range results {
		b.WriteString("\n")
		if r.Step == nil && r.ParseErr != nil {
			writeParseError(&b, r.ParseErr)
			continue
		}
		writeStep(&b, r)
	}
	return []byte(b.String())
}

// header counts the results by status: "Axon plan: 3 steps, 2 applied, 1 failed."
func header(results []step.Result) string {
	order := []step.Status{step.StatusApplied, step.StatusPlanned, step.StatusRead, step.StatusUnchanged, step.StatusFailed, step.StatusSkipped}
	count := map[step.Status]int{}
	steps, unread := 0, 0
	for _, r := range results {
		if r.Step == nil && r.ParseErr != nil {
			unread++
			continue
		}
		steps++
		count[r.Status]++
	}
	parts := []string{fmt.Sprintf("%d step%s", steps, plural(steps))}
	for _, s := range order {
		if count[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[s], s))
		}
	}
	if unread > 0 {
		parts = append(parts, fmt.Sprintf("%d block%s not read", unread, plural(unread)))
	}
	return "Axon plan: " + strings.Join(parts, ", ") + ".\n"
}

func writeParseError(b *strings.Builder, e *step.ParseError) {
	fmt.Fprintf(b, "[error] line %d, column %d: not applied: %s\n", e.Pos.Line, e.Pos.Col, e.Msg)
	if e.Quote != "" {
		fmt.Fprintf(b, "  near: %s\n", e.Quote)
	}
	if e.Fix != "" {
		fmt.Fprintf(b, "  hint: %s\n", e.Fix)
	}
}

func writeStep(b *strings.Builder, r step.Result) {
	r = step.Rehinted(r, step.ReasonLosesCode, "send a replace act with the old and the new text of only the part that changes, "+
		"or write_file with the whole file and nothing left out")
	id := r.StepID
	what := ""
	line := 0
	if s := r.Step; s != nil {
		if id == "" {
			id = s.ID
		}
		what, line = s.Reason, s.Pos.Line
		if src, ok := s.Source.(Source); ok && len(src.Acts) == 1 {
			what = src.Acts[0].Desc // the act the model wrote, whatever the step's reason
		}
	}
	fmt.Fprintf(b, "[%s] %s", id, r.Status)
	if what != "" {
		fmt.Fprintf(b, ": %s", what)
	}
	if line > 0 {
		fmt.Fprintf(b, " (line %d)", line)
	}
	b.WriteString("\n")
	if r.Commit != "" {
		fmt.Fprintf(b, "  commit %s\n", shortHash(r.Commit))
	}
	if s := r.Step; s != nil {
		// A git_commit group names its acts: the model wrote acts, and
		// the step's reason is only the commit message.
		if src, ok := s.Source.(Source); ok && len(src.Acts) > 1 {
			var acts []string
			for _, a := range src.Acts {
				acts = append(acts, fmt.Sprintf("%s (line %d)", a.Desc, a.Line))
			}
			fmt.Fprintf(b, "  acts: %s\n", strings.Join(acts, "; "))
		}
		for _, rp := range s.Repairs {
			fmt.Fprintf(b, "  note: %s\n", rp.What)
		}
	}
	if r.Error != "" {
		fmt.Fprintf(b, "  error: %s\n", r.Error)
	}
	if r.Hint != "" {
		fmt.Fprintf(b, "  hint: %s\n", indentLines(r.Hint, "    "))
	}
	if r.Status == step.StatusFailed && r.Class == step.ClassPrecondition && r.Step != nil && r.Step.StopRun {
		b.WriteString("  the run stopped here: a failed check_* act stops the plan, nothing after it was applied\n")
	}
	for _, op := range r.Ops {
		if op.Error != "" && strings.Contains(r.Error, op.Error) && op.Hint == r.Hint {
			// The step's error is this op's, already said above.
			op.Error, op.Hint = "", ""
		}
		writeOp(b, op, step.OpOutcome(r, op))
	}
	for _, p := range r.Programs {
		writeProgram(b, p)
	}
}

// writeOp writes one op's line, in the words of its outcome (o): a
// refused op is not to be retried as it is.
func writeOp(b *strings.Builder, op step.OpResult, o step.Outcome) {
	target := op.Path
	if op.To != "" {
		target += " -> " + op.To
	}
	if target != "" {
		target = " " + target
	}
	status := string(op.Status)
	if o == step.OutcomeRefused {
		status = "refused by the safety policy"
	}
	if o == step.OutcomeNotAttempted {
		// An earlier operation or step failed; the message says which.
		status = "not attempted"
		if strings.HasPrefix(op.Message, status) {
			status, op.Message = op.Message, ""
		}
	}
	if o == step.OutcomeRolledBack {
		// Done, then undone with its step: the message says it was not
		// applied, and why.
		status = "rolled back"
		if strings.HasPrefix(op.Message, status) {
			status, op.Message = op.Message, ""
		}
	}
	fmt.Fprintf(b, "  %s%s: %s", op.Kind, target, status)
	if op.Message != "" {
		fmt.Fprintf(b, " (%s)", op.Message)
	}
	b.WriteString("\n")
	for _, rr := range op.Replaces {
		switch {
		case rr.NoOp:
			fmt.Fprintf(b, "    edit %d: warning: no-op: the old and new texts are equal, nothing changed; send only edits that change something\n", rr.Index+1)
		case rr.AlreadyApplied:
			fmt.Fprintf(b, "    edit %d: already applied, nothing changed\n", rr.Index+1)
		case rr.StartLine > 0:
			fmt.Fprintf(b, "    edit %d: replaced lines %d-%d", rr.Index+1, rr.StartLine, rr.EndLine)
			if rr.Tier != "" && rr.Tier != "exact" {
				fmt.Fprintf(b, " (matched %s)", rr.Tier)
			}
			if len(rr.AppliedAt) > 0 {
				fmt.Fprintf(b, " (the old text also occurs at line%s %s, where the edit is already applied)", plural(len(rr.AppliedAt)), joinInts(rr.AppliedAt))
			}
			b.WriteString("\n")
		}
	}
	if op.Error != "" {
		fmt.Fprintf(b, "    error: %s\n", op.Error)
	}
	if op.Hint != "" {
		fmt.Fprintf(b, "    hint: %s\n", indentLines(op.Hint, "      "))
	}
	if op.Output != "" {
		writeData(b, "text", op.Output)
	}
	if op.Diff != "" {
		writeData(b, "diff", op.Diff)
	}
}

func writeProgram(b *strings.Builder, p step.ProgramResult) {
	name := p.Name
	if name == "" {
		name = "run_command"
	}
	if p.Status == step.ProgramNotAttempted {
		why := p.Error
		if !strings.HasPrefix(why, "not attempted") {
			why = strings.TrimSpace("not attempted " + why)
		}
		fmt.Fprintf(b, "  %s: %s\n", name, why)
		return
	}
	fmt.Fprintf(b, "  %s: %s, exit code %d", name, p.Status, p.ReturnCode)
	if p.Status != step.ProgramRefused {
		fmt.Fprintf(b, ", %gs", p.Runtime)
	}
	b.WriteString("\n")
	if p.Error != "" {
		fmt.Fprintf(b, "    error: %s\n", p.Error)
	}
	if p.Hint != "" {
		fmt.Fprintf(b, "    hint: %s\n", p.Hint)
	}
	if p.Stdout != "" {
		b.WriteString("    stdout:\n")
		writeData(b, "text", p.Stdout)
	}
	if p.Stderr != "" {
		b.WriteString("    stderr:\n")
		writeData(b, "text", p.Stderr)
	}
}

// writeData writes data in a tilde fence longer than any run of tildes in
// it (at least five, like a plan's), so no line of the data can close it.
func writeData(b *strings.Builder, info, data string) {
	longest, run := 0, 0
	for i := 0; i < len(data); i++ {
		if data[i] == '~' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("~", max(5, longest+1))
	b.WriteString(f + info + "\n" + data)
	if !strings.HasSuffix(data, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(f + "\n")
}

// joinInts writes line numbers as "3, 7, 12".
func joinInts(ls []int) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = fmt.Sprint(l)
	}
	return strings.Join(s, ", ")
}

// shortHash is the abbreviated commit ID git shows by default.
func shortHash(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}

// indentLines indents every line of a multi-line text (a hint that carries
// a diff) after the first, so it stays inside its entry.
func indentLines(s, pad string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad)
}
