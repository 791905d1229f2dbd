package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/termsafe"
)

// Commit messages people read in git log: a subject of at most 72
// characters in the imperative, cut at a word boundary (the whole reason
// then goes to the body), the files the step added, changed, deleted and
// moved, and the Autocoder-Step trailer. A step without a reason is
// described by its operations, in the same words the terminal uses
// (Subject). No local absolute path reaches a message: the repository's
// root and the home folder are taken out of the text, and no control
// character but the line break and the tab (they are written escaped).

// maxSubject is git's customary limit for a subject line.
const maxSubject = 72

// Subject is the one-line description of a step that its commit and the
// terminal both show: its reason, made a subject, or else what its
// operations do. root (may be "") is the repository root, taken out of
// paths.
func Subject(s *step.Step, root string) string {
	subj, _ := subjectOf(s, root)
	return subj
}

// subjectOf returns the subject and, when the subject is not the whole
// reason (cut, or the reason has more lines), the full reason for the body.
func subjectOf(s *step.Step, root string) (subject, full string) {
	reason := scrubPaths(strings.TrimSpace(s.Reason), root)
	first, rest, _ := strings.Cut(reason, "\n")
	first = imperative(oneLine(first))
	if first == "" {
		return describeStep(s, root), ""
	}
	subject = cutAtWord(first, maxSubject)
	if subject != first || strings.TrimSpace(rest) != "" {
		full = reason
	}
	return subject, full
}

// CommitMessage is a step's commit message. ch are the paths the commit
// changes (nil: the body lists no files); root is the repository root.
func CommitMessage(s *step.Step, ch []pathChange, root string) string {
	subject, full := subjectOf(s, root)
	var b strings.Builder
	b.WriteString(subject)
	b.WriteString("\n\n")
	if full != "" {
		b.WriteString(full)
		b.WriteString("\n\n")
	}
	if body := scrubPaths(strings.TrimSpace(s.Summary), root); body != "" && body != strings.TrimSpace(full) {
		b.WriteString(body)
		b.WriteString("\n\n")
	}
	if files := fileList(s, ch); files != "" {
		b.WriteString(files)
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Autocoder-Step: %s\n", oneLine(s.ID))
	// git log prints a message as it is: a control character from the
	// response (an escape sequence in the reason or the step id, a
	// bidirectional override) would be obeyed by the user's terminal.
	return termsafe.Escape(b.String())
}

// fileList is the body's account of the paths a commit changes: moves
// (a move op whose source went and whose target came), then files added,
// changed and deleted, one kind per line.
func fileList(s *step.Step, ch []pathChange) string {
	if len(ch) == 0 {
		return ""
	}
	state := map[string]pathChange{}
	for _, c := range ch {
		state[c.Path] = c
	}
	used := map[string]bool{}
	var moved, added, changed, deleted []string
	for _, op := range s.Ops {
		if op.Kind != step.OpMove {
			continue
		}
		from, to := state[op.Path], state[op.To]
		if op.Path != "" && op.To != "" && from.Old.Exists && !from.New.Exists && to.New.Exists && !used[op.Path] && !used[op.To] {
			moved = append(moved, op.Path+" -> "+op.To)
			used[op.Path], used[op.To] = true, true
		}
	}
	for _, c := range ch {
		if used[c.Path] {
			continue
		}
		switch {
		case !c.Old.Exists && c.New.Exists:
			added = append(added, c.Path)
		case c.Old.Exists && !c.New.Exists:
			deleted = append(deleted, c.Path)
		default:
			changed = append(changed, c.Path)
		}
	}
	var b strings.Builder
	line := func(kind string, paths []string) {
		if len(paths) == 0 {
			return
		}
		sort.Strings(paths)
		fmt.Fprintf(&b, "%s: %s\n", kind, strings.Join(paths, ", "))
	}
	line("Moved", moved)
	line("Added", added)
	line("Changed", changed)
	line("Deleted", deleted)
	return b.String()
}

// opVerbs says what each kind of op does, as a subject's verb.
var opVerbs = map[step.OpKind]string{
	step.OpWrite:   "Write",
	step.OpAppend:  "Append to",
	step.OpReplace: "Edit",
	step.OpDelete:  "Delete",
	step.OpMove:    "Move",
	step.OpMkdir:   "Create folder",
	step.OpRmdir:   "Delete folder",
	step.OpChmod:   "Set the mode of",
	step.OpRead:    "Read",
	step.OpList:    "List",
	step.OpSearch:  "Search",
	step.OpDiff:    "Diff",
	step.OpEcho:    "Echo a message",
	step.OpStatus:  "Show git status",
}

// describeStep is the subject of a step without a reason: what its
// operations do ("Write a.txt and edit b.txt"), its checks, or the
// programs it runs, within the subject's length.
func describeStep(s *step.Step, root string) string {
	var parts []string
	for _, c := range s.Checks {
		switch c.Kind {
		case step.CheckFilesExist:
			verb := " exist"
			if len(c.Paths) == 1 {
				verb = " exists"
			}
			parts = append(parts, "Check that "+strings.Join(c.Paths, ", ")+verb)
		case step.CheckCwdMatch:
			parts = append(parts, "Check that the repository is "+c.Want)
		}
	}
	for _, op := range s.Ops {
		verb, ok := opVerbs[op.Kind]
		if !ok {
			continue
		}
		what := verb
		if op.Kind != step.OpEcho && op.Kind != step.OpStatus && op.Path != "" {
			what += " " + scrubPaths(op.Path, root)
		}
		if op.Kind == step.OpMove && op.To != "" {
			what += " to " + scrubPaths(op.To, root)
		}
		parts = append(parts, what)
	}
	for _, p := range s.Programs {
		cmd := p.Command
		if len(p.Args) > 0 {
			cmd += " " + strings.Join(p.Args, " ")
		}
		parts = append(parts, "Run "+oneLine(cmd))
	}
	for i := 1; i < len(parts); i++ {
		parts[i] = lowerFirst(parts[i])
	}
	switch len(parts) {
	case 0:
		if s.Finish {
			return "Finish"
		}
		return "Do nothing"
	case 1:
		return cutAtWord(parts[0], maxSubject)
	}
	for n := len(parts); n >= 1; n-- {
		var s string
		if n == len(parts) {
			s = strings.Join(parts[:n-1], ", ") + " and " + parts[n-1]
		} else {
			s = strings.Join(parts[:n], ", ") + fmt.Sprintf(" and %d more", len(parts)-n)
		}
		if utf8.RuneCountInString(s) <= maxSubject {
			return s
		}
	}
	return cutAtWord(parts[0]+fmt.Sprintf(" and %d more", len(parts)-1), maxSubject)
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// cutAtWord shortens s to at most max characters at a word boundary,
// marking the cut with "…".
func cutAtWord(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	runes := []rune(s)
	cut := runes[:max-1]
	if i := strings.LastIndexAny(string(cut), " \t"); i > len(string(cut))/2 {
		return strings.TrimRight(string(cut)[:i], " ,;:-") + "…"
	}
	return string(cut) + "…"
}

// leadIns are the openings of a model's narration that are not part of
// what the step does ("I'll add the form" is "Add the form").
var leadIns = []string{
	"i'll ", "i will ", "i am going to ", "i'm going to ", "let me ", "let's ", "lets ",
	"we'll ", "we will ", "now i'll ", "now i will ", "now, ", "now ", "next, ", "next ", "first, ", "then, ",
	"this step ", "this commit ", "this change ", "step: ", "in this step, ",
}

// pastToImperative turns the past tense or third person that models often
// write ("Added", "Adds", "Fixing") into git's imperative. A table of the
// verbs that begin commit subjects, rather than rules, so that "Address"
// or "Process" stay as they are.
var pastToImperative = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, v := range []string{"add", "fix", "update", "remove", "delete", "create", "rename", "move",
		"refactor", "implement", "change", "replace", "write", "rewrite", "improve", "clean", "handle",
		"introduce", "extract", "make", "use", "set", "support", "allow", "document", "test", "drop",
		"simplify", "split", "merge", "convert", "bump", "upgrade", "correct", "adjust", "append",
		"edit", "insert", "enable", "disable", "initialize", "format", "reformat", "restructure",
		"return", "validate", "check", "log", "show", "print", "build", "define", "declare", "export",
		"import", "wrap", "store", "load", "read", "parse", "render", "expose", "hide", "guard", "avoid",
		"prevent", "ensure", "keep", "tidy", "revert", "apply", "configure", "install", "create", "mark"} {
		m[v] = v
		m[v+"s"] = v
		m[v+"es"] = v
		switch {
		case strings.HasSuffix(v, "e"):
			m[v+"d"] = v
			m[v[:len(v)-1]+"ing"] = v
		case strings.HasSuffix(v, "y") && !strings.HasSuffix(v, "ay"):
			m[v[:len(v)-1]+"ies"] = v
			m[v[:len(v)-1]+"ied"] = v
			m[v+"ing"] = v
		default:
			m[v+"ed"] = v
			m[v+"ing"] = v
			last := v[len(v)-1]
			if len(v) >= 3 && strings.IndexByte("aeiou", v[len(v)-2]) >= 0 && strings.IndexByte("aeiouwxy", last) < 0 &&
				strings.IndexByte("aeiou", v[len(v)-3]) < 0 {
				m[v+string(last)+"ed"] = v // drop -> dropped
				m[v+string(last)+"ing"] = v
			}
		}
	}
	m["made"] = "make"
	m["wrote"] = "write"
	m["rewrote"] = "rewrite"
	m["built"] = "build"
	m["kept"] = "keep"
	m["set"] = "set"
	m["split"] = "split"
	return m
})

// imperative makes a reason's first line a subject: narration lead-ins
// out, a first verb in the past or third person made imperative, the
// first letter upper case, no final period or colon.
func imperative(s string) string {
	s = strings.TrimSpace(strings.TrimLeft(s, "#*-> \t"))
	for changed := true; changed; {
		changed = false
		for _, l := range leadIns {
			if len(s) > len(l) && strings.EqualFold(s[:len(l)], l) {
				s = strings.TrimSpace(s[len(l):])
				changed = true
			}
		}
	}
	word, rest, _ := strings.Cut(s, " ")
	if v, ok := pastToImperative()[strings.ToLower(word)]; ok {
		s = v
		if rest != "" {
			s += " " + rest
		}
	}
	s = trimEnd(s)
	if s == "" {
		return ""
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// trimEnd drops a subject's final period, colon or semicolon, but not the
// "./..." of a command it names (go test ./...), which is not punctuation.
func trimEnd(s string) string {
	s = strings.TrimRight(s, " :;")
	if strings.HasSuffix(s, "/...") {
		return s
	}
	return strings.TrimRight(s, " .:;")
}

// scrubPaths takes local absolute paths out of text: the repository root
// (a path inside it becomes relative) and the home folder (~).
func scrubPaths(text, root string) string {
	if text == "" {
		return text
	}
	var prefixes []string
	if root != "" {
		prefixes = append(prefixes, root)
		if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
			prefixes = append(prefixes, real)
		}
	}
	for _, p := range prefixes {
		p = filepath.ToSlash(p)
		text = strings.ReplaceAll(text, p+"/", "")
		text = strings.ReplaceAll(text, p, ".")
	}
	if home, err := os.UserHomeDir(); err == nil && len(home) > 1 {
		text = strings.ReplaceAll(text, filepath.ToSlash(home), "~")
	}
	return text
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
