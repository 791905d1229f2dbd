// Package axon reads Axon plans (DIALECTS.md section 3) into steps and writes
// the executor's answer for them.
//
// Start with Parse: it finds the plan's fence character, reads the blocks
// into acts (readActs), turns each act into ops, checks or programs (the
// acts table in acts.go) and gathers acts into steps (group). Feedback, in
// feedback.go, writes the plain-text report a model reads after a run.
//
// An Axon plan is a run of fenced blocks. A block whose info string is "act"
// names an act on its first line, optionally followed by shell-style inline
// arguments; the blocks after it, up to the next act block, are its
// positional parameters whatever their info strings.
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
	"fmt"
	"github.com/autocoder/autocoder/step"
	"strings"
	"unicode/utf8"

	"github.com/autocoder/autocoder/protocol/fence"
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

// Parse reads every Axon act of text into items in document order: one step
// per act, or one step per git_commit group, or a *step.ParseError where an
// act cannot be read unambiguously. An error does not stop the reading:
// later acts are still read. Text with no act block yields no items.
func Parse(text []byte) []step.Item {
	char, from, ok := planStart(text)
	if !ok {
		return nil
	}
	return group(readActs(text, fence.ScanChar(text, char, from)))
}

// planStart finds the first act block of text, read with both fence
// characters the way Markdown would, so that an act quoted inside a ```
// example before the plan is not taken for the plan. The plan's character
// is that block's, and the plan starts at its opening line.
func planStart(text []byte) (char byte, from int, ok bool) {
	for _, b := range fence.Scan(text) {
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

	err *step.ParseError // set when the act cannot be read

	desc   string // "write_file src/a.py": default commit subject
	ops    []step.Op
	checks []step.Check
	progs  []step.Program
	note   string // an accepted act with nothing to do (git_add)
	msg    string // git_commit: the commit message
}

// readActs splits the plan's blocks into acts and reads each. The first block
// is always an act block (the plan starts at one). An act named "end" stops
// the reading: what follows it is not part of the plan.
func readActs(text []byte, blocks []fence.Block) []*act {
	var acts []*act
	for _, b := range blocks {
		if b.Info == "act" {
			a := &act{block: b, start: b.Start, end: b.End, pos: blockPos(b)}
			a.readLine(text)
			if a.err == nil && a.name == "end" {
				break
			}
			acts = append(acts, a)
			continue
		}
		a := acts[len(acts)-1]
		a.params = append(a.params, b)
		a.end = b.End
	}
	for _, a := range acts {
		a.read()
	}
	return acts
}

// blockPos is the position of a block's opening fence.
func blockPos(b fence.Block) step.Pos {
	return step.Pos{Offset: b.Start + b.Indent, Line: b.Line, Col: b.Indent + 1}
}

// readLine reads the act line: the first non-blank content line of the act
// block. More non-blank lines are an error, not extra parameters: the
// parameters belong in their own blocks, and guessing would hide a plan the
// model wrote wrongly.
func (a *act) readLine(text []byte) {
	b := a.block
	raw := text[b.ContentStart:b.ContentEnd]
	lineNo := b.Line + 1
	found := false
	for pos := 0; pos < len(raw); lineNo++ {
		end := pos
		for end < len(raw) && raw[end] != '\n' {
			end++
		}
		l := strings.TrimRight(string(raw[pos:end]), "\r")
		indent := len(l) - len(strings.TrimLeft(l, " \t"))
		lp := step.Pos{Offset: b.ContentStart + pos + indent, Line: lineNo, Col: indent + 1}
		pos = end + 1
		if strings.TrimSpace(l) == "" {
			continue
		}
		if found {
			a.fail(lp, "the act block holds more than one line", strings.TrimSpace(l),
				"put the act name and its inline arguments on the first line of the act block; give other parameters in their own blocks after it")
			return
		}
		found = true
		a.line, a.linePos = strings.TrimSpace(l), lp
	}
	if !found {
		a.fail(a.pos, "the act block names no act", firstLine(text[b.Start:]),
			"write the act's name on the first line of the act block, for example write_file")
		return
	}
	name, rest, _ := strings.Cut(a.line, " ")
	if i := strings.IndexByte(name, '\t'); i >= 0 {
		name, rest = a.line[:i], a.line[i+1:]
	}
	a.name, rest = name, strings.TrimSpace(rest)
	switch {
	case rest == "":
	case name == "run_command":
		// The shell splits the command; splitting it here too would
		// change what runs.
		a.args = []string{rest}
	case name == "git_commit":
		// A message is prose: `git_commit don't panic` must not fail on
		// the apostrophe. A fully quoted message loses its quotes, and
		// a leading -m (git's own spelling) is dropped.
		words, err := splitArgs(rest)
		if err != nil {
			a.args = []string{rest}
			break
		}
		if len(words) > 0 && words[0] == "-m" {
			words = words[1:]
		}
		if len(words) > 0 {
			a.args = []string{strings.Join(words, " ")}
		}
	default:
		words, err := splitArgs(rest)
		if err != nil {
			qe := err.(*quoteError)
			at := strings.Index(a.line, rest) + qe.Col - 1 // byte index of the quote in the line
			a.fail(step.Pos{Offset: a.linePos.Offset + at, Line: a.linePos.Line, Col: a.linePos.Col + utf8.RuneCountInString(a.line[:at])},
				"act line: "+err.Error(), a.line,
				fmt.Sprintf("close the %c quote, or give the argument in a block of its own after the act block", qe.Quote))
			return
		}
		a.args = words
	}
}

// fail records the act's error. The first error wins: it is the one the
// others follow from.
func (a *act) fail(pos step.Pos, msg, quote, hint string) {
	if a.err != nil {
		return
	}
	a.err = &step.ParseError{Dialect: Dialect, Pos: pos, Msg: msg, Quote: short(quote), Hint: hint}
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
func (a *act) read() {
	// An unclosed block ran to the end of the text, so whatever else is
	// wrong with the act (an act block of many lines, say) follows from it:
	// report the fence.
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
		a.fail(a.linePos, fmt.Sprintf("unknown act %q", a.name), a.line, unknownHint(a.name))
		return
	}
	var ps []param
	for _, s := range a.args {
		ps = append(ps, param{text: s, content: []byte(s), lines: 1, pos: a.linePos})
	}
	for _, b := range a.params {
		v := b.Content
		if len(v) > 0 {
			v = v[:len(v)-1]
		}
		ps = append(ps, param{text: string(v), content: b.Content, lines: b.Lines, block: true, pos: blockPos(b)})
	}
	if !sp.variadic && len(ps) != len(sp.params) {
		a.countError(sp, ps)
		return
	}
	sp.build(a, ps)
}

// lastBlock is the act's last block: the one an unclosed fence can only be.
func (a *act) lastBlock() fence.Block {
	if n := len(a.params); n > 0 {
		return a.params[n-1]
	}
	return a.block
}

// countError reports a parameter count that does not fit the act.
func (a *act) countError(sp spec, ps []param) {
	msg := fmt.Sprintf("%s takes %d parameter%s (%s) but has %d", a.name, len(sp.params),
		plural(len(sp.params)), strings.Join(sp.params, ", "), len(ps))
	var hint string
	if len(ps) > len(sp.params) {
		extra := ps[len(sp.params)]
		if extra.block {
			msg += fmt.Sprintf("; the first extra one is the block at line %d", extra.pos.Line)
		} else {
			msg += "; the first extra one is an inline argument"
		}
		hint = "every block after an act block is a parameter of that act until the next act block; " +
			"write explanations as prose outside fences, and quote an inline argument that holds spaces"
		if sp.content {
			hint += fmt.Sprintf("; if the content holds a line of %d '%c', fence it with more", a.block.Len, a.block.Char)
		}
	} else {
		hint = fmt.Sprintf("after the act block, write one block per parameter, in order: %s; open and close each block with a line of %s",
			strings.Join(sp.params, ", "), fenceOf(a.block))
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
	s = strings.TrimSpace(firstLine([]byte(s)))
	const max = 60
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
