package axon

import (
	"fmt"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/suggest"
	"strings"
)

// mode is how an act combines its inline arguments (the words of the act
// block after its name) with its block arguments (the blocks after the act
// block), exactly as the reference registers each act.
type mode int

const (
	hybrid    mode = iota // the inline arguments, then the blocks
	exclusive             // the inline arguments if there are any (the blocks are then ignored), else the blocks
	blockOnly             // the blocks only; inline arguments are ignored with a note
)

// spec is what an act takes and what it becomes.
type spec struct {
	mode       mode
	params     []string // parameter names, for messages
	optional   int      // how many of the last params may be left out
	variadic   bool     // any number of parameters (build checks them)
	ignoreArgs bool     // the act takes whatever follows it and ignores it (end)
	content    bool     // one parameter is written content (hints about fence length)
	build      func(a *act, ps []param)
}

// min is the number of parameters the act needs.
func (sp spec) min() int {
	if sp.variadic || sp.ignoreArgs {
		return 0
	}
	return len(sp.params) - sp.optional
}

// known lists the acts in the order messages name them: the prompt's acts
// first, then those the reference registers.
var known = []string{
	"check_files_exist", "check_cwd_match", "write_file", "replace", "patch_file",
	"append_file", "move_file", "delete_file", "read_file", "list_files", "search_files",
	"run_command", "git_status", "git_init", "git_add", "git_commit", "echo", "log_thought", "end",
}

var specs map[string]spec

func init() {
	// In init, not a literal: the build funcs refer back to specs through
	// act.read, which the compiler would call an initialization cycle.
	specs = map[string]spec{
		"check_files_exist": {mode: exclusive, params: []string{"file_list"}, variadic: true, build: buildFilesExist},
		"check_cwd_match":   {mode: exclusive, params: []string{"expected_path"}, build: buildCwdMatch},
		"write_file":        {mode: hybrid, params: []string{"path", "content"}, content: true, build: buildWrite(step.OpWrite)},
		"append_file":       {mode: hybrid, params: []string{"path", "content"}, content: true, build: buildWrite(step.OpAppend)},
		"replace":           {mode: hybrid, params: []string{"path", "old_string", "new_string"}, content: true, build: buildReplace},
		"patch_file":        {mode: hybrid, params: []string{"path", "old_string", "new_string"}, content: true, build: buildReplace},
		"move_file":         {mode: hybrid, params: []string{"source", "destination"}, build: buildMove},
		"delete_file":       {mode: exclusive, params: []string{"path"}, build: buildPathOp(step.OpDelete)},
		"read_file":         {mode: hybrid, params: []string{"path"}, build: buildPathOp(step.OpRead)},
		"list_files":        {mode: exclusive, params: []string{"path"}, optional: 1, build: buildList},
		"search_files":      {mode: exclusive, params: []string{"pattern", "path"}, optional: 1, build: buildSearch},
		"run_command":       {mode: exclusive, params: []string{"command"}, build: buildRun},
		"git_status":        {mode: exclusive, build: buildGitStatus},
		"git_init":          {mode: exclusive, build: buildNote("git_init: nothing to do: autocoder works inside an existing git repository")},
		"git_add":           {mode: exclusive, params: []string{"paths"}, variadic: true, build: buildGitAdd},
		"git_commit":        {mode: blockOnly, params: []string{"message"}, build: buildCommit},
		"echo":              {mode: hybrid, params: []string{"text"}, build: buildEcho},
		"log_thought":       {mode: blockOnly, params: []string{"thought"}, build: buildThought},
		"end":               {mode: hybrid, ignoreArgs: true, build: func(a *act, ps []param) { a.desc = "end" }},
	}
}

// path reads a path parameter: one line, white space trimmed (a path block
// is often written with a trailing space or blank line), not empty.
func (a *act) path(p param, what string) (string, bool) {
	s := strings.TrimSpace(p.text)
	switch {
	case s == "":
		a.fail(p.pos, fmt.Sprintf("%s: the %s is empty", a.name, what), a.line,
			fmt.Sprintf("write the %s, relative to the repository root, as the block's only line", what))
		return "", false
	case strings.Contains(s, "\n") && !p.block:
		a.fail(p.pos, fmt.Sprintf("%s: the %s holds more than one line", a.name, what), s,
			fmt.Sprintf("a %s is one line; a quote in the act block spans lines, close it on the line it opens", what))
		return "", false
	case strings.Contains(s, "\n"):
		a.fail(p.pos, fmt.Sprintf("%s: the %s block holds more than one line", a.name, what), s,
			fmt.Sprintf("a %s block holds one path; if the lines were meant as content, the %s block is missing before them", what, what))
		return "", false
	}
	return s, true
}

func buildWrite(kind step.OpKind) func(a *act, ps []param) {
	return func(a *act, ps []param) {
		p, ok := a.path(ps[0], "path")
		if !ok {
			return
		}
		a.desc = a.name + " " + p
		// TextLines: the file ends with a line break and an append starts
		// on a new line (DIALECTS.md, written content).
		a.ops = []step.Op{{Kind: kind, Path: p, Content: ps[1].content, HasContent: true,
			MustExist: kind == step.OpAppend, TextLines: true, Pos: a.pos}}
	}
}

func buildReplace(a *act, ps []param) {
	p, ok := a.path(ps[0], "path")
	if !ok {
		return
	}
	a.desc = a.name + " " + p
	// The values already lack their final newline: the one the block's
	// closing fence forces on the text is not part of the edit.
	a.ops = []step.Op{{Kind: step.OpReplace, Path: p, Pos: a.pos,
		Edits: []step.Edit{{Old: ps[1].text, New: ps[2].text, Pos: ps[1].pos}}}}
}

func buildMove(a *act, ps []param) {
	src, ok := a.path(ps[0], "source path")
	if !ok {
		return
	}
	dst, ok := a.path(ps[1], "destination path")
	if !ok {
		return
	}
	a.desc = fmt.Sprintf("move_file %s -> %s", src, dst)
	a.ops = []step.Op{{Kind: step.OpMove, Path: src, To: dst, Pos: a.pos}}
}

func buildPathOp(kind step.OpKind) func(a *act, ps []param) {
	return func(a *act, ps []param) {
		p, ok := a.path(ps[0], "path")
		if !ok {
			return
		}
		a.desc = a.name + " " + p
		a.ops = []step.Op{{Kind: kind, Path: p, Pos: a.pos}}
	}
}

func buildRun(a *act, ps []param) {
	cmd := strings.TrimSpace(ps[0].text)
	if cmd == "" {
		a.fail(ps[0].pos, "run_command: the command is empty", a.line,
			"write the shell command in the block after the act block")
		return
	}
	a.desc = "run_command " + short(cmd)
	a.progs = []step.Program{{Name: "run_command", Command: cmd, Shell: true, Pos: a.pos}}
}

func buildFilesExist(a *act, ps []param) {
	var paths []string
	for _, p := range ps {
		if !p.block {
			paths = append(paths, p.text) // an inline argument is one path
			continue
		}
		// A block is a newline-separated list; blank lines are layout.
		for _, l := range strings.Split(p.text, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				paths = append(paths, l)
			}
		}
	}
	if len(paths) == 0 {
		a.fail(a.pos, "check_files_exist lists no file", a.line,
			"list the files that must exist, one per line, in the block after the act block")
		return
	}
	a.desc = "check_files_exist " + short(strings.Join(paths, ", "))
	a.checks = []step.Check{{Kind: step.CheckFilesExist, Paths: paths, Pos: a.pos}}
}

func buildCwdMatch(a *act, ps []param) {
	// "~" is kept: the engine expands it against the user it runs as.
	want, ok := a.path(ps[0], "expected path")
	if !ok {
		return
	}
	a.desc = "check_cwd_match " + want
	a.checks = []step.Check{{Kind: step.CheckCwdMatch, Want: want, Pos: a.pos}}
}

func buildGitAdd(a *act, ps []param) {
	var paths []string
	for _, p := range ps {
		for _, l := range strings.Split(p.text, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				paths = append(paths, l)
			}
		}
	}
	a.desc = strings.TrimSpace("git_add " + short(strings.Join(paths, " ")))
	a.notes = append(a.notes, "git_add: autocoder stages what it writes")
}

func buildCommit(a *act, ps []param) {
	msg := strings.TrimSpace(ps[0].text)
	if msg == "" {
		a.fail(ps[0].pos, "git_commit: the commit message is empty", a.line,
			"write the commit message in the block after the git_commit act")
		return
	}
	a.msg = msg
	a.desc = "git_commit " + short(msg)
}

func buildList(a *act, ps []param) {
	p := "."
	if len(ps) > 0 {
		var ok bool
		if p, ok = a.path(ps[0], "path"); !ok {
			return
		}
	}
	a.desc = "list_files " + p
	a.ops = []step.Op{{Kind: step.OpList, Path: p, Pos: a.pos, Narrow: "list_files a subfolder of it (list_files PATH)"}}
}

func buildSearch(a *act, ps []param) {
	pattern := ps[0].text
	if strings.TrimSpace(pattern) == "" {
		a.fail(ps[0].pos, "search_files: the pattern is empty", a.line,
			"write the text (a regular expression) to search for as the first parameter")
		return
	}
	p := "."
	if len(ps) > 1 {
		var ok bool
		if p, ok = a.path(ps[1], "path"); !ok {
			return
		}
	}
	a.desc = "search_files " + short(pattern)
	// The reference searches with ripgrep, so the pattern is a regular
	// expression.
	a.ops = []step.Op{{Kind: step.OpSearch, Path: p, Pos: a.pos, Read: &step.ReadOptions{Query: pattern, Regex: true},
		Narrow: "search_files a narrower PATTERN, or give a PATH below this one"}}
}

func buildGitStatus(a *act, ps []param) {
	a.desc = "git_status"
	a.ops = []step.Op{{Kind: step.OpStatus, Pos: a.pos}}
}

func buildNote(note string) func(a *act, ps []param) {
	return func(a *act, ps []param) {
		a.desc = a.name
		a.notes = append(a.notes, note)
	}
}

func buildEcho(a *act, ps []param) {
	a.desc = "echo " + short(ps[0].text)
	a.ops = []step.Op{{Kind: step.OpEcho, Content: []byte(ps[0].text), HasContent: true, Pos: a.pos}}
}

func buildThought(a *act, ps []param) {
	a.desc = "log_thought " + short(ps[0].text)
	a.summary = strings.TrimSpace(ps[0].text)
}

// unknownHint names the known acts, and the one meant (suggest.Closest:
// "WriteFile", "write-file", "writ_file").
func unknownHint(name string) string {
	hint := "the known acts are " + strings.Join(known, ", ")
	if k := suggest.Closest(name, known); k != "" {
		return fmt.Sprintf("did you mean %s? %s", k, hint)
	}
	return hint
}

// group turns acts into items. A git_commit act gathers the acts since the
// previous git_commit (or the plan's start) into one step whose commit
// message is its text; acts after the last git_commit are one step each.
// Step IDs are "axon-<n>", n counting steps in document order from 1.
//
// A step of one act takes its plan's title as its reason (see planTitle
// and Parse); with none it has no reason, and the engine describes it by
// its operations.
func group(acts []*act) []step.Item {
	g := grouper{}
	var pending []*act
	for _, a := range acts {
		if a.name == "git_commit" {
			g.commit(pending, a)
			pending = nil
			continue
		}
		pending = append(pending, a)
	}
	for _, a := range pending {
		if a.err != nil {
			g.fail(a)
			continue
		}
		g.step([]*act{a}, a.title, "", a.start, a.end)
	}
	return g.items
}

type grouper struct {
	items []step.Item
	n     int
}

func (g *grouper) fail(a *act) {
	g.items = append(g.items, step.Item{Err: a.err, Start: a.start, End: a.end})
}

// commit emits a git_commit group. A group with an unreadable act is not
// applied at all: its acts were meant as one commit, and applying part of
// it would be a guess. Each unreadable act is reported at its block, and the
// git_commit act says which acts it leaves out.
func (g *grouper) commit(acts []*act, c *act) {
	bad := 0
	for _, a := range acts {
		if a.err != nil {
			g.fail(a)
			bad++
		}
	}
	if bad == 0 && c.err == nil {
		start := c.start
		if len(acts) > 0 {
			start = acts[0].start
		}
		reason, summary, _ := strings.Cut(c.msg, "\n")
		g.step(append(acts[:len(acts):len(acts)], c), strings.TrimSpace(reason), strings.TrimSpace(summary), start, c.end)
		return
	}
	span := ""
	if len(acts) > 0 {
		span = fmt.Sprintf("its group of %d act%s (lines %d-%d) is not applied", len(acts), plural(len(acts)),
			acts[0].pos.Line, acts[len(acts)-1].block.Line)
	} else {
		span = "it commits nothing"
	}
	if c.err != nil {
		e := *c.err
		e.Msg += "; " + span
		g.items = append(g.items, step.Item{Err: &e, Start: c.start, End: c.end})
		return
	}
	g.items = append(g.items, step.Item{Start: c.start, End: c.end, Err: &step.ParseError{
		Dialect: Dialect, Pos: c.pos, Quote: short(c.msg),
		Msg: fmt.Sprintf("git_commit: %s because %d of its acts could not be read", span, bad),
		Fix: "fix the acts reported before this one and send the whole group again, ending with its git_commit",
	}})
}

// step emits one step made of acts.
func (g *grouper) step(acts []*act, reason, summary string, start, end int) {
	g.n++
	s := &step.Step{ID: fmt.Sprintf("axon-%d", g.n), Reason: reason, Summary: summary, Dialect: Dialect, Pos: acts[0].pos}
	src := Source{}
	for _, a := range acts {
		s.Ops = append(s.Ops, a.ops...)
		s.Checks = append(s.Checks, a.checks...)
		s.Programs = append(s.Programs, a.progs...)
		for _, n := range a.notes {
			s.Repairs = append(s.Repairs, step.Repair{Pos: a.pos, What: n})
		}
		if a.summary != "" {
			s.Summary = strings.TrimSpace(s.Summary + "\n\n" + a.summary)
		}
		src.Acts = append(src.Acts, Act{Name: a.name, Desc: a.desc, Line: a.pos.Line})
	}
	// A failed check stops the run (the prompt: "the whole execution stops
	// at once"), also when the check shares a commit group.
	s.StopRun = len(s.Checks) > 0
	s.Source = src
	g.items = append(g.items, step.Item{Step: s, Start: start, End: end})
}

// Acts are the acts this reader knows, in the order its messages name them.
func Acts() []string { return append([]string(nil), known...) }
