// Package axon reads Axon plans (DIALECTS.md section 3) into steps and writes
// the executor's answer for them.
//
// Start with ParseText: it finds the plan's fence character, reads the blocks
// into acts (readActs), turns each act into ops, checks or programs (the
// acts table in acts.go) and gathers acts into steps (group). Feedback, in
// feedback.go, writes the plain-text report a model reads after a run.
//
// An Axon plan is a run of fenced blocks. A block whose info string is "act"
// holds one shell-style command line over all its lines, split as Python's
// shlex.split splits it (package shellwords): the first word names the act,
// the others are its inline arguments. The blocks after it, up to the next
// act block, are its block arguments whatever their info strings. How the
// two combine depends on the act (hybrid, exclusive, block only: acts.go),
// as the reference registers it.
//
// Values: a parameter's value is its content lines joined with "\n", with no
// final newline ("a\nb" for a block of the lines a and b). That is the path,
// the old and new text of replace/patch_file, the command of run_command and
// the message of git_commit. Written content (write_file, append_file) keeps
// the block's final line ending: a block of the lines a and b writes
// "a\nb\n", a block of one empty line writes "\n", and an empty block writes
// nothing. An inline argument's value is the argument exactly.
//
// Positions are those of step.Pos; columns count characters, not bytes, as
// the tjson reader's do, so that an error's column is the one a model or a
// person counts.
package axon

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/autocoder/autocoder/step"

	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/shellwords"
	"github.com/autocoder/autocoder/textpos"
)

// Dialect is the value of step.Step.Dialect and step.ParseError.Dialect for
// Axon.
const Dialect = "axon"

// Source is the Axon record of a step (step.Step.Source): the acts it was
// read from, in order, the git_commit act last when there is one.
type Source struct {
	Acts []Act
}

// Act is one act of a step, as the feedback names it.
type Act struct {
	Name string // "write_file"
	Desc string // "write_file src/a.py"
	Line int    // line of the act block's opening fence
}

// ParseText reads every Axon act of text into items in document order: one step
// per act, or one step per git_commit group, or a *step.ParseError where an
// act cannot be read unambiguously. An error does not stop the reading:
// later acts are still read. Text with no act block yields no items.
func ParseText(t *fence.Text) []step.Item {
	text := t.Bytes
	char, from, ok := planStart(t.Blocks)
	if !ok {
		return nil
	}
	acts := readActs(text, fence.ScanChar(text, char, from))
	// Each act takes the title of its plan. An act after another
	// dialect's block starts a plan of its own (a mixed answer): its title
	// is what the text after the act before it says, not the first plan's.
	title := planTitle(text[:from])
	for i, a := range acts {
		if i > 0 && foreign(text[acts[i-1].end:a.start]) {
			title = planTitle(text[acts[i-1].end:a.start])
		}
		a.title = title
	}
	return group(acts)
}

// foreign reports whether text holds a block of another dialect: an
// autocoder JSON block (a line that starts with #####--) or an MCP request
// (fenced as mcp-request, or a bare JSON-RPC object).
func foreign(text []byte) bool {
	for _, l := range strings.Split(string(text), "\n") {
		if c := fence.Lead(l); c != '#' && c != '{' && c != '`' && c != '~' && c != 'm' && c != utf8.RuneSelf {
			continue // none of the three can start the line: told without trimming it
		}
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "#####--") || isRequestLine(l) || strings.HasPrefix(strings.TrimLeft(l, "`~"), "mcp-request") {
			return true
		}
	}
	return false
}

// isRequestLine reports whether the trimmed line l looks like a bare
// JSON-RPC request of the MCP dialect.
func isRequestLine(l string) bool {
	return strings.HasPrefix(l, "{") && strings.Contains(l, `"jsonrpc"`)
}

// maskForeign turns the lines of other dialects' blocks into NULs, which no
// prose line holds: an autocoder JSON block from its #####-- line to its
// --##### line, and a bare JSON-RPC request line. Fenced blocks are masked
// by planTitle itself.
func maskForeign(lines []string) {
	mask := func(i int) { lines[i] = strings.Repeat("\x00", max(len(lines[i]), 1)) }
	for i := 0; i < len(lines); i++ {
		if c := fence.Lead(lines[i]); c != '#' && c != '{' && c != utf8.RuneSelf {
			continue // neither can start the line: told without trimming it
		}
		l := strings.TrimSpace(lines[i])
		switch {
		case strings.HasPrefix(l, "#####--"):
			for ; i < len(lines); i++ {
				end := strings.Contains(lines[i], "--#####")
				mask(i)
				if end {
					break
				}
			}
		case isRequestLine(l):
			mask(i)
		}
	}
}

// planTitle is what the text before a plan says the plan does: the last
// Markdown heading before it, or else the first sentence of the paragraph
// right before it ("I'll add a login form." — the engine makes a subject
// of it). "" when neither is there.
func planTitle(before []byte) string {
	// Fenced blocks are not prose: a "# comment" in a code block is no
	// heading. Their bytes become NULs, which no prose line holds.
	text := bytes.Clone(before)
	for _, b := range fence.Scan(text) {
		// Line by line: clear runs many bytes at a time.
		for i, end := b.Start, min(b.End, len(text)); i < end; {
			j := bytes.IndexByte(text[i:end], '\n')
			if j < 0 {
				j = end - i
			}
			clear(text[i : i+j])
			i += j + 1
		}
	}
	lines := strings.Split(string(text), "\n")
	maskForeign(lines)
	for i := len(lines) - 1; i >= 0; i-- {
		if c := fence.Lead(lines[i]); c != '#' && c != utf8.RuneSelf {
			continue // no heading: told without trimming the line
		}
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "#") && strings.IndexByte(l, 0) < 0 {
			t := strings.TrimSpace(strings.TrimRight(strings.TrimLeft(l, "#"), "# "))
			if t != "" && (len(l) == len(strings.TrimLeft(l, "#")) || strings.HasPrefix(strings.TrimLeft(l, "#"), " ")) {
				return t
			}
		}
	}
	// No heading: the paragraph that ends right before the plan.
	end := len(lines) - 1
	for end >= 0 && strings.TrimSpace(lines[end]) == "" {
		end--
	}
	if end >= 0 && strings.IndexByte(lines[end], 0) >= 0 {
		return "" // a code block, not a sentence, comes right before the plan
	}
	startLine := end
	for startLine > 0 && strings.TrimSpace(lines[startLine-1]) != "" && strings.IndexByte(lines[startLine-1], 0) < 0 {
		startLine--
	}
	if end < 0 {
		return ""
	}
	para := strings.Join(strings.Fields(strings.Join(lines[startLine:end+1], " ")), " ")
	if strings.HasPrefix(para, "```") || strings.HasPrefix(para, "~~~") || strings.HasPrefix(para, ">") || strings.HasPrefix(para, "|") {
		return ""
	}
	// A list item ("1. Create the config:", "- then the test") names its
	// own acts, not the whole plan's.
	if listItem().MatchString(para) {
		return ""
	}
	// The first sentence that says what the plan does: an acknowledgement
	// ("Sure!", "Okay, ", "好的，") is passed over, and a sentence that
	// only introduces what follows ("Here is the plan") says nothing.
	rest := strings.TrimSuffix(strings.TrimSuffix(para, ":"), "：") // "Add the test:" introduces its acts
	for n := 0; rest != "" && n < 3; n++ {
		sentence := rest
		rest = ""
		for i, r := range sentence {
			if strings.ContainsRune(".!?。！？", r) && (i+len(string(r)) == len(sentence) || sentence[i+len(string(r))] == ' ' || r >= 0x3000) {
				sentence, rest = strings.TrimSpace(sentence[:i]), strings.TrimSpace(sentence[i+len(string(r)):])
				break
			}
		}
		sentence = strings.TrimSuffix(strings.TrimSuffix(sentence, ":"), "：")
		for _, ack := range []string{"sure", "okay", "ok", "certainly", "of course", "alright", "absolutely", "好的", "好", "当然", "可以"} {
			if low := strings.ToLower(sentence); strings.HasPrefix(low, ack) {
				after := sentence[len(ack):]
				if after == "" || strings.HasPrefix(after, ",") || strings.HasPrefix(after, "，") || strings.HasPrefix(after, " ") {
					sentence = strings.TrimSpace(strings.TrimLeft(after, ",， "))
					break
				}
			}
		}
		low := strings.ToLower(sentence)
		intro := false
		for _, p := range []string{"here is", "here's", "here are", "below is", "the following", "以下"} {
			if strings.HasPrefix(low, p) {
				intro = true
			}
		}
		if !intro && utf8.RuneCountInString(sentence) >= 6 {
			return sentence
		}
	}
	return ""
}

// listItem matches the start of a Markdown list item.
var listItem = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+[.)]|[-*+])\s`) })

// planStart finds the first act block of text, read with both fence
// characters the way Markdown would, so that an act quoted inside a ```
// example before the plan is not taken for the plan. The plan's character
// is that block's, and the plan starts at its opening line.
func planStart(blocks []fence.Block) (char byte, from int, ok bool) {
	for _, b := range blocks {
		if b.Info == "act" {
			return b.Char, b.Start, true
		}
	}
	return 0, 0, false
}

// act is one act block with its parameter blocks, and what it was read
// into.
type act struct {
	block  fence.Block
	params []fence.Block
	start  int // item span: the act block's start ...
	end    int // ... to the end of its last parameter block

	pos     step.Pos // the act block's opening fence
	line    string   // the act line, white space trimmed
	linePos step.Pos // where the act line's text starts
	name    string
	args    []string // inline arguments
	title   string   // the title of the act's plan (planTitle): a step of this act alone takes it as its reason

	err *step.ParseError // set when the act cannot be read

	desc    string // "write_file src/a.py": default commit subject
	ops     []step.Op
	checks  []step.Check
	progs   []step.Program
	notes   []string // what the act did not do, for the feedback (git_add, ignored arguments)
	unknown bool     // the act is not one the reference knows: the plan stops at it
	summary string   // log_thought: the thought, recorded with the step
	msg     string   // git_commit: the commit message
}

// readActs splits the plan's blocks into acts and reads each. The first block
// is always an act block (the plan starts at one). An act the reference
// does not know either ends the plan there: what follows it is not read, as
// a plug-in act the model expected may have been meant to prepare it.
func readActs(text []byte, blocks []fence.Block) []*act {
	var acts []*act
	for _, b := range blocks {
		if b.Info == "act" {
			a := &act{block: b, start: b.Start, end: b.End, pos: blockPos(b)}
			a.readBlock(text)
			acts = append(acts, a)
			continue
		}
		a := acts[len(acts)-1]
		a.params = append(a.params, b)
		a.end = b.End
	}
	for i, a := range acts {
		a.read()
		if a.unknown {
			if rest := len(acts) - i - 1; rest > 0 {
				a.err.Msg += fmt.Sprintf("; the plan stops here: %d more act%s (from line %d) not applied",
					rest, plural(rest), acts[i+1].pos.Line)
				a.end = acts[len(acts)-1].end
			}
			return acts[:i+1]
		}
	}
	return acts
}

// blockPos is the position of a block's opening fence.
func blockPos(b fence.Block) step.Pos {
	return step.Pos{Offset: b.Start + b.Indent, Line: b.Line, Col: b.Indent + 1}
}

// readBlock reads the act block as the reference does: its whole content is
// one shell-style command line (Python's shlex.split: new lines are blanks,
// quotes group), the first word names the act and the others are its inline
// arguments, so "patch_file⏎path/to/file" is "patch_file path/to/file".
func (a *act) readBlock(text []byte) {
	b := a.block
	raw := string(text[b.ContentStart:b.ContentEnd])
	trimmed := strings.TrimSpace(raw)
	lead := len(raw) - len(strings.TrimLeft(raw, " \t\r\n"))
	a.line = trimmed
	a.linePos = a.textPos(text, b.ContentStart+lead)
	if trimmed == "" {
		a.fail(a.pos, "the act block names no act", firstLine(text[b.Start:]),
			"write the act's name on the first line of the act block, for example write_file")
		return
	}
	words, err := shellwords.Split(raw)
	if err != nil {
		qe := err.(*shellwords.QuoteError)
		what := fmt.Sprintf("the %c quote is never closed", qe.Char)
		if qe.Char == '\\' {
			what = "a backslash at the end escapes nothing"
		}
		a.fail(a.textPos(text, b.ContentStart+qe.Offset), "act block: "+what, a.line, qe.Hint()+
			", or give the argument in a block of its own after the act block")
		return
	}
	a.name, a.args = words[0], words[1:]
	// run_command: the reference splits the command into words and joins
	// them with new lines, which breaks every command of more than one
	// word ("mkdir⏎-p⏎dir"). The command is what the model wrote after the
	// act's name; the program policy reads it as a shell line. The prompt
	// teaches run_command "COMMAND": a command written as one quoted word
	// is that word's text (the shell would run "python -m pytest -q" as
	// one program name, which never exists).
	if a.name == "run_command" && len(a.args) > 0 && strings.HasPrefix(trimmed, a.name) {
		cmd := strings.TrimSpace(trimmed[len(a.name):])
		if len(a.args) == 1 && (cmd[0] == '"' || cmd[0] == '\'') {
			cmd = a.args[0]
		}
		a.args = []string{cmd}
	}
}

// textPos is the position of byte offset off of text, counted from the
// act block's first line (textpos.Advance: linear in the block, not the
// text).
func (a *act) textPos(text []byte, off int) step.Pos {
	b := a.block
	return textpos.Advance(text, step.Pos{Offset: b.Start, Line: b.Line, Col: 1}, off)
}

// fail records the act's error. The first error wins: it is the one the
// others follow from.
func (a *act) fail(pos step.Pos, msg, quote, hint string) {
	if a.err != nil {
		return
	}
	a.err = &step.ParseError{Dialect: Dialect, Pos: pos, Msg: msg, Quote: short(quote), Fix: hint}
}

// param is one positional parameter: an inline argument or a block.
type param struct {
	text    string // the value: lines joined with "\n"
	content []byte // written content: the block's content with its final newline
	lines   int
	block   bool
	pos     step.Pos
}

// read turns a named act and its parameters into ops, checks or programs.
// Inline and block arguments combine as the act's mode says (acts.go).
func (a *act) read() {
	// An unclosed block ran to the end of the text, so whatever else is
	// wrong with the act follows from it: report the fence.
	if last := a.lastBlock(); !last.Closed {
		a.err = nil
		a.fail(blockPos(last), fmt.Sprintf("unclosed %s block: the text ends before its closing fence", fenceOf(last)),
			strings.TrimSpace(fenceOf(last)+last.Info),
			fmt.Sprintf("close the block opened at line %d with a line of %d '%c' (%s)", last.Line, last.Len, last.Char, fenceOf(last)))
		return
	}
	if a.err != nil {
		return
	}
	sp, ok := specs[a.name]
	if !ok {
		a.unknown = true
		a.fail(a.linePos, fmt.Sprintf("unknown act %q", a.name), a.line, unknownHint(a.name))
		return
	}
	var inline, blocks []param
	for _, s := range a.args {
		inline = append(inline, param{text: s, content: []byte(s), lines: 1, pos: a.linePos})
	}
	for _, b := range a.params {
		v := b.Content
		if len(v) > 0 {
			v = v[:len(v)-1]
		}
		blocks = append(blocks, param{text: string(v), content: b.Content, lines: b.Lines, block: true, pos: blockPos(b)})
	}
	var ps []param
	switch sp.mode {
	case hybrid:
		ps = append(inline, blocks...)
	case exclusive:
		ps = blocks
		if len(inline) > 0 {
			ps = inline
			if n := len(blocks); n > 0 {
				a.notes = append(a.notes, fmt.Sprintf("%s: the %d block%s after it (from line %d) %s ignored: the act has inline arguments",
					a.name, n, plural(n), blocks[0].pos.Line, isAre(n)))
			}
		}
	case blockOnly:
		ps = blocks
		if len(inline) > 0 {
			a.notes = append(a.notes, fmt.Sprintf("%s: the inline argument%s %s %s ignored: the act reads its blocks only",
				a.name, plural(len(inline)), short(strings.Join(a.args, " ")), isAre(len(inline))))
		}
	}
	if sp.ignoreArgs {
		if n := len(ps); n > 0 {
			a.notes = append(a.notes, fmt.Sprintf("%s: its %d argument%s ignored", a.name, n, plural(n)))
		}
		ps = nil
	}
	max := len(sp.params)
	if sp.variadic {
		max = int(^uint(0) >> 1)
	}
	if len(ps) < sp.min() || len(ps) > max {
		a.countError(sp, ps, len(inline) > 0 && sp.mode == blockOnly)
		return
	}
	sp.build(a, ps)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// lastBlock is the act's last block: the one an unclosed fence can only be.
func (a *act) lastBlock() fence.Block {
	if n := len(a.params); n > 0 {
		return a.params[n-1]
	}
	return a.block
}

// countError reports a parameter count that does not fit the act. More
// arguments than the act takes are an error, not ignored as the reference
// ignores them: in real plans the extra block was an unclosed fence that had
// swallowed the next act.
func (a *act) countError(sp spec, ps []param, inlineIgnored bool) {
	want := fmt.Sprintf("%d", len(sp.params))
	if m := sp.min(); m != len(sp.params) {
		want = fmt.Sprintf("%d to %d", m, len(sp.params))
	}
	msg := fmt.Sprintf("%s takes %s parameter%s (%s) but has %d", a.name, want,
		plural(len(sp.params)), strings.Join(sp.params, ", "), len(ps))
	if len(sp.params) == 0 {
		msg = fmt.Sprintf("%s takes no parameter but has %d", a.name, len(ps))
	}
	var hint string
	if len(ps) > len(sp.params) {
		extra := ps[len(sp.params)]
		if extra.block {
			msg += fmt.Sprintf("; the first extra one is the block at line %d", extra.pos.Line)
		} else {
			msg += fmt.Sprintf("; the first extra one is the inline argument %q", short(extra.text))
		}
		hint = "every block after an act block is a parameter of that act until the next act block; " +
			"write explanations as prose outside fences, and quote an inline argument that holds spaces"
		if sp.content {
			hint += fmt.Sprintf("; if the content holds a line of %d '%c', fence it with more", a.block.Len, a.block.Char)
		}
	} else {
		hint = fmt.Sprintf("after the act block, write one block per parameter, in order: %s; open and close each block with a line of %s",
			strings.Join(sp.params, ", "), fenceOf(a.block))
		if inlineIgnored {
			hint = a.name + " reads its parameters from blocks only, not from the act block; " + hint
		}
	}
	a.fail(a.pos, msg, a.line, hint)
}

// fenceOf spells a block's fence: "~~~~~".
func fenceOf(b fence.Block) string {
	return strings.Repeat(string(b.Char), b.Len)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// firstLine is the first line of b, without its line ending.
func firstLine(b []byte) string {
	s := string(b)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRight(s, "\r")
}

// short cuts a quote to a length a message can carry, at a rune boundary.
func short(s string) string {
	return textpos.Clip(strings.TrimSpace(firstLine([]byte(s))), 60)
}
