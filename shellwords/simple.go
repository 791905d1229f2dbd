package shellwords

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/autocoder/autocoder/step"
)

// Kind is what makes a command line more than one simple command.
type Kind string

// The kinds, as messages name them.
const (
	KindSyntax     Kind = "not valid shell syntax"
	KindEmpty      Kind = "no command"
	KindList       Kind = "a list of commands"              // a;b  a&&b  a||b  a new line
	KindPipeline   Kind = "a pipeline"                      // a|b
	KindBackground Kind = "a command run in the background" // a &
	KindRedirect   Kind = "a redirection"                   // >f <f 2>&1
	KindCompound   Kind = "a compound command"              // (a) {a;} if for while case, functions, [[ ]], (( ))
	KindAssign     Kind = "a variable assignment"           // A=1 cmd
	KindExpansion  Kind = "an expansion"                    // $V ${V} $(…) `…` $((…)) <(…) $'…'
	KindGlob       Kind = "a glob"                          // * ? [ and extended globs, unquoted
	KindTilde      Kind = "a tilde expansion"               // ~ ~user, unquoted at a word's start
	KindBrace      Kind = "a brace expansion"               // {a,b} {1..3}
	KindComment    Kind = "a comment"                       // # …
)

// NotSimpleError says why a command line is not one simple command with
// fixed words: what was found (Kind), the text that shows it, and where
// (byte offset, 1-based line and column in characters).
type NotSimpleError struct {
	Kind   Kind
	Text   string
	Offset int
	Line   int
	Col    int
}

func (e *NotSimpleError) Error() string {
	if e.Kind == KindEmpty {
		return "the command line holds no command"
	}
	if e.Text == "" { // a list split by ";" or a new line has no operator text to show
		return fmt.Sprintf("line %d, column %d: %s: the shell would decide what runs", e.Line, e.Col, e.Kind)
	}
	return fmt.Sprintf("line %d, column %d: %s (%s): the shell would decide what runs",
		e.Line, e.Col, e.Kind, e.Text)
}

// Class is step.ClassRefused: the program policy refuses what it cannot
// check word for word.
func (e *NotSimpleError) Class() step.Class { return step.ClassRefused }

// Hint says what to write instead.
func (e *NotSimpleError) Hint() string {
	switch e.Kind {
	case KindSyntax:
		return "write one program and its arguments; close every quote"
	case KindEmpty:
		return "write the program to run and its arguments"
	case KindGlob, KindTilde, KindBrace, KindExpansion:
		return "write every argument out as the text it should be; quote a character the shell would expand ('*.go')"
	}
	return "run one program with its arguments; send each command as a program of its own"
}

// Simple reads line as /bin/sh would and returns the words of the one simple
// command it holds, quotes removed, when every word is fixed text: no
// operator, redirection, assignment, expansion, glob, tilde or brace
// expansion, and no comment. Anything else is a *NotSimpleError naming the
// first such thing in the line, so the program policy can compare exactly
// the words that would run with its allow-list.
func Simple(line string) ([]string, error) {
	f, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).
		Parse(strings.NewReader(line), "")
	if err != nil {
		var pe syntax.ParseError
		var le syntax.LangError
		switch {
		case errors.As(err, &pe):
			return nil, notSimple(line, KindSyntax, pe.Text, pe.Pos)
		case errors.As(err, &le):
			return nil, notSimple(line, KindSyntax, le.Feature, le.Pos)
		}
		return nil, &NotSimpleError{Kind: KindSyntax, Text: err.Error(), Line: 1, Col: 1}
	}
	if len(f.Stmts) == 0 {
		if len(f.Last) > 0 {
			return nil, notSimple(line, KindComment, "#"+f.Last[0].Text, f.Last[0].Hash)
		}
		return nil, &NotSimpleError{Kind: KindEmpty, Line: 1, Col: 1}
	}
	if len(f.Stmts) > 1 {
		return nil, notSimple(line, KindList, "", f.Stmts[1].Pos())
	}
	st := f.Stmts[0]
	switch {
	case len(st.Comments) > 0:
		return nil, notSimple(line, KindComment, "#"+st.Comments[0].Text, st.Comments[0].Hash)
	case len(f.Last) > 0:
		return nil, notSimple(line, KindComment, "#"+f.Last[0].Text, f.Last[0].Hash)
	case st.Background || st.Coprocess || st.Disown:
		return nil, notSimple(line, KindBackground, "&", st.Semicolon)
	case len(st.Redirs) > 0:
		return nil, notSimple(line, KindRedirect, st.Redirs[0].Op.String(), st.Redirs[0].OpPos)
	case st.Negated:
		return nil, notSimple(line, KindCompound, "!", st.Position)
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok {
			kind := KindList
			if b.Op == syntax.Pipe || b.Op == syntax.PipeAll {
				kind = KindPipeline
			}
			return nil, notSimple(line, kind, b.Op.String(), b.OpPos)
		}
		return nil, notSimple(line, KindCompound, "", st.Cmd.Pos())
	}
	if len(call.Assigns) > 0 {
		return nil, notSimple(line, KindAssign, call.Assigns[0].Name.Value+"=", call.Assigns[0].Pos())
	}
	for _, w := range call.Args {
		if err := fixed(line, w); err != nil {
			return nil, err
		}
	}
	// Every word is fixed text, so expanding them only removes quotes; no
	// environment, file system or command is consulted.
	return expand.Fields(&expand.Config{Env: expand.ListEnviron()}, call.Args...)
}

// fixed reports the first part of w the shell would expand.
func fixed(line string, w *syntax.Word) error {
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				return notSimple(line, KindTilde, "~", p.ValuePos)
			}
			if at := globChar(p.Value); at >= 0 {
				return notSimple(line, KindGlob, p.Value[at:at+1], syntax.NewPos(p.ValuePos.Offset()+uint(at), p.ValuePos.Line(), p.ValuePos.Col()+uint(at)))
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return notSimple(line, KindExpansion, "$'", p.Left)
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				return notSimple(line, KindExpansion, "$\"", p.Left)
			}
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return notSimple(line, KindExpansion, text(line, q), q.Pos())
				}
			}
		case *syntax.ExtGlob:
			return notSimple(line, KindGlob, text(line, p), p.Pos())
		default: // ParamExp, CmdSubst, ArithmExp, ProcSubst
			return notSimple(line, KindExpansion, text(line, p), p.Pos())
		}
	}
	c := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	if syntax.SplitBraces(c) {
		return notSimple(line, KindBrace, text(line, w), w.Pos())
	}
	return nil
}

// globChar is the byte index of the first unescaped *, ? or [ in an unquoted
// literal as the source spells it, or -1.
func globChar(lit string) int {
	for i := 0; i < len(lit); i++ {
		switch lit[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return i
		}
	}
	return -1
}

// text is the source text of a node, cut short for a message.
func text(line string, n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(line) || s > e {
		return ""
	}
	t := []rune(line[s:e])
	if len(t) > 40 {
		return string(t[:40]) + "…"
	}
	return string(t)
}

func notSimple(line string, k Kind, t string, p syntax.Pos) *NotSimpleError {
	off := int(p.Offset())
	l, c := Position(line, off)
	return &NotSimpleError{Kind: k, Text: t, Offset: off, Line: l, Col: c}
}
