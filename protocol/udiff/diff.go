package udiff

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/autocoder/autocoder/protocol/fence"
	"github.com/autocoder/autocoder/step"
)

// fileDiff is one file's section of a diff.
type fileDiff struct {
	gitOld, gitNew   string // the paths of the "diff --git" line
	oldPath, newPath string // the "---" and "+++" paths as written ("" when absent)
	newMode, delMode string // "new file mode", "deleted file mode"
	oldMode, modeTo  string // "old mode", "new mode"
	renameFrom       string
	renameTo         string
	hunks            []hunk
	pos              step.Pos
	line             int // index of the header's first line
}

// hunk is one hunk: its old lines (context and "-") and new lines (context
// and "+"), and whether each side's last line lacks its newline.
type hunk struct {
	old, new       []string
	oldNoNL        bool
	newNoNL        bool
	changes        int // "-" and "+" lines
	pos            step.Pos
	oldCnt, newCnt int // the header's counts, -1 when it gives none
}

// hunkHeader is "@@ -l[,s] +l[,s] @@ heading"; the numbers are read only to
// tell a hunk cut off, and a "---"/"+++" line inside a hunk from a header.
var hunkHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@`) })

// extended are git's extended header lines.
var extended = []string{"index ", "new file mode ", "deleted file mode ", "old mode ", "new mode ",
	"similarity index ", "dissimilarity index ", "rename from ", "rename to ", "copy from ", "copy to ",
	"Binary files ", "GIT binary patch"}

// errLine is a parse error at line i of ls.
func (r *reader) errLine(ls []fence.Line, i int, msg, fix string) *step.ParseError {
	i = min(i, len(ls)-1)
	return &step.ParseError{Dialect: Dialect, Pos: r.pos(ls[i].Off), Quote: quote(ls[i].S), Msg: msg, Fix: fix}
}

// diff reads the files of one diff from line i, up to hi at most. cut says
// the text ends at hi (an unclosed fence, or the end of the response), so
// that a hunk shorter than its header says was cut off. It returns the item
// and the line after the last one it read; a bare diff (hi is the end of
// the text) ends at the first line that continues no hunk and starts no file.
func (r *reader) diff(ls []fence.Line, i, hi int, cut bool) (step.Item, int) {
	bare := hi == len(r.lines) && !cut
	if bare {
		cut = true // the text itself ends there
	}
	var files []*fileDiff
	var repairs []step.Repair
	for i < hi {
		if !r.headerAt(ls[:hi], i) {
			if bare {
				break
			}
			if strings.TrimSpace(ls[i].S) == "" {
				i++
				continue
			}
			return r.failed(ls, r.errLine(ls, i, "a line that belongs to no hunk and starts no file",
				"a diff holds file headers (--- a/PATH, +++ b/PATH) and their @@ hunks only; put explanations outside the fence"))
		}
		f := &fileDiff{pos: r.pos(ls[i].Off), line: i}
		if strings.HasPrefix(ls[i].S, "diff --git ") {
			f.gitOld, f.gitNew = gitPaths(ls[i].S[len("diff --git "):])
			i++
			for ; i < hi; i++ {
				s := ls[i].S
				ext := ""
				for _, e := range extended {
					if strings.HasPrefix(s, e) {
						ext = e
						break
					}
				}
				if ext == "" {
					break
				}
				v := strings.TrimSpace(s[len(ext):])
				switch ext {
				case "Binary files ", "GIT binary patch":
					return r.failed(ls, r.errLine(ls, i, "a binary patch: autocoder applies text diffs only",
						"write the file's new content as text, or change binary files outside autocoder"))
				case "copy from ", "copy to ":
					return r.failed(ls, r.errLine(ls, i, "a copy in a diff: autocoder does not copy files",
						"create the new file with --- /dev/null and +++ b/PATH and its whole content as + lines"))
				case "new file mode ":
					f.newMode = v
				case "deleted file mode ":
					f.delMode = v
				case "old mode ":
					f.oldMode = v
				case "new mode ":
					f.modeTo = v
				case "rename from ":
					f.renameFrom = unquote(v)
				case "rename to ":
					f.renameTo = unquote(v)
				}
			}
		}
		if i+1 < hi && strings.HasPrefix(ls[i].S, "--- ") && strings.HasPrefix(ls[i+1].S, "+++ ") {
			f.oldPath, f.newPath = headerPath(ls[i].S[4:]), headerPath(ls[i+1].S[4:])
			i += 2
		}
		for i < hi && strings.HasPrefix(ls[i].S, "@@") {
			h, next, err := r.hunk(ls, i, hi, cut)
			if err != nil {
				return r.failed(ls, err)
			}
			f.hunks = append(f.hunks, h)
			i = next
		}
		if len(f.hunks) == 0 && f.newMode == "" && f.delMode == "" && f.renameTo == "" && f.modeTo == "" {
			return r.failed(ls, r.errLine(ls, f.line, "a file header with no hunk after it",
				"follow the --- and +++ lines with the file's @@ hunks; "+example))
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return step.Item{}, i
	}
	var ops []step.Op
	var summary []File
	for _, f := range files {
		o, s, reps, err := r.ops(ls, f)
		if err != nil {
			return r.failed(ls, err)
		}
		ops = append(ops, o...)
		summary = append(summary, s)
		repairs = append(repairs, reps...)
	}
	var parts []string
	for _, s := range summary {
		verb := map[string]string{"patched": "update", "created": "add", "deleted": "delete", "renamed": "rename", "mode changed": "change the mode of"}[s.Verb]
		parts = append(parts, verb+" "+s.Path)
	}
	reason := strings.Join(parts, ", ")
	if len(parts) > 4 {
		reason = fmt.Sprintf("diff of %d files: %s, …", len(parts), strings.Join(parts[:3], ", "))
	}
	st := &step.Step{Dialect: Dialect, Reason: reason, Ops: ops, Repairs: repairs, Pos: files[0].pos, Source: Source{Files: summary}}
	return step.Item{Step: st}, i
}

// failed is the item of a diff that could not be read, and the line after
// the one the error names: a bare diff's text ends there, so that what
// follows (another block) is read on its own.
func (r *reader) failed(ls []fence.Line, e *step.ParseError) (step.Item, int) {
	i := sort.Search(len(ls), func(i int) bool { return ls[i].Off > e.Pos.Offset })
	return step.Item{Err: e}, max(i, 1)
}

// hunk reads the hunk whose "@@" line is i.
func (r *reader) hunk(ls []fence.Line, i, hi int, cut bool) (hunk, int, *step.ParseError) {
	h := hunk{pos: r.pos(ls[i].Off), oldCnt: -1, newCnt: -1}
	if m := hunkHeader().FindStringSubmatch(ls[i].S); m != nil {
		h.oldCnt, h.newCnt = 1, 1
		if m[1] != "" {
			h.oldCnt, _ = strconv.Atoi(m[1])
		}
		if m[2] != "" {
			h.newCnt, _ = strconv.Atoi(m[2])
		}
	}
	if h.oldCnt >= 0 {
		// Room for the lines the header counts (no more than the lines
		// left: the numbers are the model's): appends that grow a slice
		// of strings were a third of reading a large diff.
		h.old = make([]string, 0, max(0, min(h.oldCnt, hi-i)))
		h.new = make([]string, 0, max(0, min(h.newCnt, hi-i)))
	}
	head := i
	i++
	oldN, newN := 0, 0
	counted := h.oldCnt >= 0
	trailing := 0 // empty lines read at the end, which may stand between hunks
	last := byte(0)
	for ; i < hi; i++ {
		s := ls[i].S
		open := counted && (oldN < h.oldCnt || newN < h.newCnt)
		if !open {
			if strings.HasPrefix(s, "@@") || r.headerAt(ls[:hi], i) || strings.HasPrefix(s, "diff --git ") {
				break
			}
			if counted && s == "" {
				break // the hunk is complete: an empty line after it is a separator
			}
		}
		switch {
		case s == "" || s[0] == ' ':
			body := ""
			if s != "" {
				body = s[1:]
				trailing = 0
			} else {
				trailing++
			}
			h.old, h.new = append(h.old, body), append(h.new, body)
			oldN++
			newN++
			last = ' '
		case s[0] == '-':
			h.old = append(h.old, s[1:])
			oldN++
			h.changes++
			trailing, last = 0, '-'
		case s[0] == '+':
			h.new = append(h.new, s[1:])
			newN++
			h.changes++
			trailing, last = 0, '+'
		case s[0] == '\\':
			switch last {
			case '-':
				h.oldNoNL = true
			case '+':
				h.newNoNL = true
			case ' ':
				h.oldNoNL, h.newNoNL = true, true
			default:
				return h, 0, r.errLine(ls, i, "\\ No newline at end of file follows no line of the hunk",
					"put \\ No newline at end of file right after the last line of the file")
			}
		default:
			// A line of no hunk ends it, whatever the header counted:
			// models get the counts wrong.
			goto done
		}
	}
	if counted && (oldN < h.oldCnt || newN < h.newCnt) && i == hi && cut {
		return h, 0, r.errLine(ls, head, fmt.Sprintf("the hunk was cut off: its header counts %d old and %d new lines, the text ends after %d and %d",
			h.oldCnt, h.newCnt, oldN, newN), "send the whole hunk, up to its last line")
	}
done:
	if !counted && trailing > 0 && trailing < len(h.old) && !h.oldNoNL && !h.newNoNL {
		h.old, h.new = h.old[:len(h.old)-trailing], h.new[:len(h.new)-trailing]
	}
	if len(h.old) == 0 && len(h.new) == 0 {
		return h, 0, r.errLine(ls, head, "a hunk with no lines after its @@ header",
			"follow the @@ line with the hunk's lines: context with a space, removed with -, added with +")
	}
	return h, i, nil
}

// gitPaths splits the paths of a "diff --git a/X b/Y" line.
func gitPaths(s string) (string, string) {
	if strings.HasPrefix(s, `"`) {
		if q, err := strconv.QuotedPrefix(s); err == nil {
			return unquote(q), unquote(strings.TrimSpace(s[len(q):]))
		}
	}
	if i := strings.Index(s, " b/"); i >= 0 {
		return s[:i], s[i+1:]
	}
	if f := strings.Fields(s); len(f) == 2 {
		return f[0], f[1]
	}
	return s, s
}

// headerPath is the path of a "---" or "+++" line: up to a TAB (a timestamp
// follows it), unquoted.
func headerPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	return unquote(strings.TrimSpace(s))
}

func unquote(s string) string {
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

const devNull = "/dev/null"

// ops turns one file's section into ops.
func (r *reader) ops(ls []fence.Line, f *fileDiff) ([]step.Op, File, []step.Repair, *step.ParseError) {
	var repairs []step.Repair
	oldP, newP := f.oldPath, f.newPath
	if oldP == "" && newP == "" {
		oldP, newP = f.gitOld, f.gitNew
	}
	// a/ and b/ go when the diff uses them (aider's rule: "---" has a/ or
	// is /dev/null, and "+++" has b/ or is /dev/null).
	if (strings.HasPrefix(oldP, "a/") || oldP == devNull) && (strings.HasPrefix(newP, "b/") || newP == devNull) {
		oldP, newP = strings.TrimPrefix(oldP, "a/"), strings.TrimPrefix(newP, "b/")
	}
	isNew := oldP == devNull || f.newMode != ""
	isDel := newP == devNull || f.delMode != ""
	fail := func(msg, fix string) ([]step.Op, File, []step.Repair, *step.ParseError) {
		return nil, File{}, nil, r.errLine(ls, f.line, msg, fix)
	}
	if isNew && isDel {
		return fail("a file section that both creates and deletes its file", "a new file has --- /dev/null, a deleted one +++ /dev/null")
	}
	path := newP
	if isDel {
		path = oldP
	}
	if isNew && oldP != devNull {
		path = newP
	}
	if path == "" || path == devNull {
		return fail("a file section that names no file", "name the file on the --- a/PATH and +++ b/PATH lines")
	}
	pos := f.pos
	switch {
	case isNew:
		var content strings.Builder
		for _, h := range f.hunks {
			if len(h.old) > 0 {
				return fail("a new file (--- /dev/null) whose hunk has context or removed lines: the diff contradicts itself",
					"a new file's hunk holds only + lines: its whole content")
			}
			for _, l := range h.new {
				content.WriteString(l + "\n")
			}
		}
		data := content.String()
		if len(f.hunks) > 0 && f.hunks[len(f.hunks)-1].newNoNL {
			data = strings.TrimSuffix(data, "\n")
		}
		ops := []step.Op{{Kind: step.OpWrite, Path: path, Content: []byte(data), HasContent: true, Pos: pos}}
		if f.newMode == "100755" {
			ops = append(ops, step.Op{Kind: step.OpChmod, Path: path, Mode: "755", Pos: pos})
		}
		return ops, File{Verb: "created", Path: path}, nil, nil
	case isDel:
		op := step.Op{Kind: step.OpDelete, Path: path, Pos: pos}
		if len(f.hunks) > 0 {
			var content strings.Builder
			for _, h := range f.hunks {
				if len(h.new) > 0 {
					return fail("a deleted file (+++ /dev/null) whose hunk has context or added lines: the diff contradicts itself",
						"a deleted file's hunk holds only - lines: its whole content")
				}
				for _, l := range h.old {
					content.WriteString(l + "\n")
				}
			}
			data := content.String()
			if f.hunks[len(f.hunks)-1].oldNoNL {
				data = strings.TrimSuffix(data, "\n")
			}
			op.Content, op.HasContent = []byte(data), true
		}
		return []step.Op{op}, File{Verb: "deleted", Path: path}, nil, nil
	}
	src, dst := oldP, newP
	if f.renameFrom != "" && f.renameTo != "" {
		src, dst = f.renameFrom, f.renameTo
	} else if src != dst {
		// Different names without a rename header (--- before.c / +++
		// after.c): not a rename; the old file is edited in place.
		repairs = append(repairs, step.Repair{Pos: pos,
			What: fmt.Sprintf("--- names %s and +++ names %s without a rename header: edited %s in place", src, dst, src)})
		dst = src
	}
	var ops []step.Op
	if len(f.hunks) > 0 {
		var edits []step.Edit
		for _, h := range f.hunks {
			if len(h.old) == 0 {
				if len(f.hunks) > 1 {
					return fail("a hunk with no context or removed line among others: nothing says where it goes",
						"give the hunk the lines around the change as context")
				}
				// Only an empty file can take a hunk with no old line.
				content := joinLines(h.new, h.newNoNL)
				ops = append(ops, step.Op{Kind: step.OpWrite, Path: src, Content: []byte(content), HasContent: true,
					ExpectedSHA256: emptySHA256, Pos: h.pos})
				continue
			}
			e := step.Edit{Old: joinLines(h.old, h.oldNoNL), New: joinLines(h.new, h.newNoNL), Pos: h.pos}
			e.AtEnd = h.oldNoNL || h.newNoNL
			edits = append(edits, e)
		}
		if len(edits) > 0 {
			ops = append(ops, step.Op{Kind: step.OpReplace, Path: src, Edits: edits, Pos: pos})
		}
	}
	verb, shown := "patched", src
	if dst != src {
		ops = append(ops, step.Op{Kind: step.OpMove, Path: src, To: dst, Pos: pos})
		verb, shown = "renamed", dst
	}
	if f.modeTo != "" {
		mode := "644"
		if f.modeTo == "100755" {
			mode = "755"
		}
		ops = append(ops, step.Op{Kind: step.OpChmod, Path: dst, Mode: mode, Pos: pos})
		if len(ops) == 1 {
			verb = "mode changed"
		}
	}
	return ops, File{Verb: verb, Path: shown, From: src}, repairs, nil
}

// emptySHA256 is the SHA-256 of no bytes: a hunk with no old line may only
// fill an empty file.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// joinLines is lines each ended by "\n", the last one without when noNL.
func joinLines(ls []string, noNL bool) string {
	if !noNL && len(ls) > 0 {
		// One allocation: a hunk's lines are most of a large diff.
		n := 0
		for _, l := range ls {
			n += len(l) + 1
		}
		var b strings.Builder
		b.Grow(n)
		for _, l := range ls {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		return b.String()
	}
	return strings.Join(ls, "\n")
}
