package txn

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/suggest"
	"github.com/autocoder/autocoder/txn/reads"

	"github.com/autocoder/autocoder/checks"
	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/index"
	"github.com/autocoder/autocoder/matcher"
)

// DirtyError is a step that would touch the user's uncommitted work: a
// modified, staged, conflicted or untracked file. Nothing is changed.
type DirtyError struct {
	Path string
	Why  string
	// Untracked is "file" or "folder" when the work in the way is a file
	// git does not track, or a folder holding some: a plain git stash
	// leaves them where they are.
	Untracked string
}

func (e *DirtyError) Error() string { return fmt.Sprintf("refused %s: %s", e.Path, e.Why) }

// Hint says what to do.
func (e *DirtyError) Hint() string {
	return "autocoder never mixes your uncommitted work into a step, nor risks it on rollback: " + e.remedy("apply again")
}

// remedy is how the user clears the way, then does what next says.
func (e *DirtyError) remedy(next string) string {
	if e.Untracked == "" {
		return "commit or stash your changes to " + e.Path + " (git stash), then " + next
	}
	what := "the untracked file "
	if e.Untracked == "folder" {
		what = "the untracked files in "
	}
	return "commit, move or stash " + what + e.Path + " (git stash --include-untracked), then " + next
}

// Class is refused: the user's uncommitted work is never touched.
func (e *DirtyError) Class() step.Class { return step.ClassRefused }

// OpError is a failed op, with the op's place in the response.
type OpError struct {
	Op  *step.Op
	Err error
}

func (e *OpError) Error() string {
	where := ""
	if e.Op.Pos.Line > 0 {
		where = fmt.Sprintf(" (response line %d)", e.Op.Pos.Line)
	}
	return fmt.Sprintf("%s %s%s: %v", e.Op.Kind, e.Op.Path, where, e.Err)
}

func (e *OpError) Unwrap() error { return e.Err }

// NotFoundError is a path an op needs that does not exist.
type NotFoundError struct{ Path, Fix string }

func (e *NotFoundError) Error() string { return e.Path + " does not exist" }

// Hint says what to do.
func (e *NotFoundError) Hint() string { return e.Fix }

// Class is step failed: the repository does not hold the path.
func (e *NotFoundError) Class() step.Class { return step.ClassStepFailed }

// ExistsError is a target that exists where the op may not replace it.
type ExistsError struct{ Path, Fix string }

func (e *ExistsError) Error() string { return e.Path + " exists" }

// Hint says what to do.
func (e *ExistsError) Hint() string { return e.Fix }

// Class is step failed: the op may not replace what is there.
func (e *ExistsError) Class() step.Class { return step.ClassStepFailed }

// KindError is a folder where the op needs a file, or the reverse.
type KindError struct{ Path, Is, Fix string }

func (e *KindError) Error() string { return e.Path + " is " + e.Is }

// Hint says what to do.
func (e *KindError) Hint() string { return e.Fix }

// Class is step failed: the path is not the kind the op needs.
func (e *KindError) Class() step.Class { return step.ClassStepFailed }

// file is one path's state while a step is resolved in memory.
type file struct {
	rel string
	// As found before the step (after earlier steps of a dry run).
	origExists bool
	origDir    bool
	origLink   bool
	origData   []byte
	origMode   uint32
	// As the step leaves it.
	exists bool
	data   []byte // as the worktree file holds it
	blob   []byte // as git stores it (see settle); set by changes
	mode   uint32
	dir    bool // a folder (only as origDir; steps write files)
}

// workspace resolves one step against the worktree. overlay, in a dry run,
// holds the files as earlier steps of the run left them.
type workspace struct {
	e       *Engine
	files   map[string]*file
	order   []string
	dirs    []string
	overlay map[string]*file
	written map[string]writer // path -> the first op of the step that wrote it
}

func (w *workspace) get(rel string) (*file, error) {
	if f, ok := w.files[rel]; ok {
		return f, nil
	}
	f := &file{rel: rel}
	if o, ok := w.overlay[rel]; ok {
		f.origExists, f.origData, f.origMode = o.exists, o.data, o.mode
	} else {
		full := w.e.Repo.Abs(rel)
		fi, err := os.Lstat(full)
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		case err != nil:
			return nil, err
		case fi.IsDir():
			f.origDir = true
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(full)
			if err != nil {
				return nil, err
			}
			f.origExists, f.origLink, f.origData, f.origMode = true, true, []byte(target), gitops.ModeSymlink
		case fi.Mode().IsRegular():
			if fi.Size() > w.e.opts.MaxFileBytes {
				return nil, &checks.RefusedError{Path: rel, Why: fmt.Sprintf("the file has %d bytes, over the limit of %d", fi.Size(), w.e.opts.MaxFileBytes),
					Fix: "edit large files by hand, or raise [apply] max_file_bytes in autocoder.toml"}
			}
			data, err := os.ReadFile(full)
			if err != nil {
				return nil, err
			}
			f.origExists, f.origData = true, data
			f.origMode = gitops.ModeFile
			if fi.Mode()&0o111 != 0 {
				f.origMode = gitops.ModeExec
			}
		default:
			return nil, &checks.RefusedError{Path: rel, Why: "it is not a regular file", Fix: "steps change regular files only"}
		}
	}
	f.exists, f.data, f.mode, f.dir = f.origExists, f.origData, f.origMode, f.origDir
	w.files[rel] = f
	w.order = append(w.order, rel)
	return f, nil
}

// resolvePath applies the path policy.
func (w *workspace) resolvePath(raw string) (string, error) {
	return w.e.Policy.Resolve(raw)
}

// setContent writes content to a file state, refusing folders and links.
func (w *workspace) setContent(f *file, data []byte) error {
	if f.dir {
		return &KindError{Path: f.rel, Is: "a folder", Fix: "write to a file inside it, or delete the folder first in its own step"}
	}
	if f.origLink {
		return &checks.RefusedError{Path: f.rel, Why: "it is a symbolic link; autocoder never writes through one",
			Fix: "write to the file the link points to, if it is inside the repository"}
	}
	if err := w.parentsAreFolders(f.rel); err != nil {
		return err
	}
	if int64(len(data)) > w.e.opts.MaxFileBytes {
		return &checks.RefusedError{Path: f.rel, Why: fmt.Sprintf("the new content has %d bytes, over the limit of %d ([apply] max_file_bytes)", len(data), w.e.opts.MaxFileBytes),
			Fix: "write large files by hand, or raise [apply] max_file_bytes in autocoder.toml"}
	}
	if !f.exists {
		f.mode = gitops.ModeFile
	}
	f.exists, f.data = true, data
	return nil
}

// parentsAreFolders refuses a path below something that is a file.
func (w *workspace) parentsAreFolders(rel string) error {
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if f, ok := w.files[d]; ok && f.exists {
			return &ConflictPathError{Path: rel, File: d}
		}
		if o, ok := w.overlay[d]; ok && o.exists {
			return &ConflictPathError{Path: rel, File: d}
		}
		fi, err := os.Lstat(w.e.Repo.Abs(d))
		if err == nil && !fi.IsDir() {
			if f, ok := w.files[d]; ok && !f.exists {
				continue // deleted by this step
			}
			return &ConflictPathError{Path: rel, File: d}
		}
	}
	return nil
}

// ConflictPathError is a file that would have to live below a file.
type ConflictPathError struct{ Path, File string }

func (e *ConflictPathError) Error() string {
	return fmt.Sprintf("cannot create %s: %s is a file, not a folder", e.Path, e.File)
}

// Hint says what to do.
func (e *ConflictPathError) Hint() string {
	return "delete " + e.File + " first in the same step, or choose another path"
}

// Class is step failed: the path cannot exist beside what is there.
func (e *ConflictPathError) Class() step.Class { return step.ClassStepFailed }

// resolve runs the checks and computes every op in memory. It changes
// nothing on disk. Ops results go into res.
func (w *workspace) resolve(s *step.Step, res *step.Result) error {
	for i := range s.Checks {
		c := &s.Checks[i]
		var err error
		switch c.Kind {
		case step.CheckFilesExist:
			err = checks.FilesExist(w.e.Policy, c.Paths)
		case step.CheckCwdMatch:
			err = checks.CwdMatch(w.e.Repo.Root, c.Want)
		default:
			err = &step.Error{C: step.ClassUsage, Msg: fmt.Sprintf("unknown check %q", c.Kind),
				Fix: "the checks are " + string(step.CheckFilesExist) + " and " + string(step.CheckCwdMatch)}
		}
		if err != nil {
			return err
		}
	}
	for i := range s.Ops {
		op := &s.Ops[i]
		r := step.OpResult{Kind: op.Kind, Path: op.Path, To: op.To, Status: step.StatusApplied}
		err := w.resolveOp(op, &r)
		if err != nil {
			w.e.namesLookAlikes(err)
			r.Status, r.Error, r.Hint = step.StatusFailed, err.Error(), step.HintOf(err)
			res.Ops = append(res.Ops, r)
			return &OpError{Op: op, Err: err}
		}
		res.Ops = append(res.Ops, r)
	}
	return nil
}

func (w *workspace) resolveOp(op *step.Op, r *step.OpResult) error {
	switch op.Kind {
	case step.OpEcho:
		r.Status, r.Output = step.StatusRead, string(op.Content)
		return nil
	case step.OpStatus:
		r.Status = step.StatusRead
		return w.status(r)
	}
	if !op.Kind.Writes() {
		rel, err := w.e.Policy.ResolveRead(op.Path)
		if err != nil {
			return err
		}
		r.Path = rel
		return w.read(op, rel, r)
	}
	rel, err := w.resolvePath(op.Path)
	if err != nil {
		return err
	}
	r.Path = rel
	if err := w.once(op, op.Path, rel); err != nil {
		return err
	}
	f, err := w.get(rel)
	if err != nil {
		return err
	}
	if op.ExpectedSHA256 != "" {
		if err := checks.SHA256(rel, f.data, f.exists, op.ExpectedSHA256); err != nil {
			return err
		}
	}
	switch op.Kind {
	case step.OpWrite:
		data := written(op, f, nil)
		switch {
		case !f.exists:
			r.Message = "created"
		case bytes.Equal(data, f.data) && !f.origLink:
			// A response sent again: "replaced" would tell the model it
			// changed something.
			r.Message = "the file already has this content; nothing changed"
		case op.NoReplace && len(f.data) > 0:
			return &ExistsError{Path: rel, Fix: "this write only creates a file or fills an empty one; " +
				"to change " + rel + ", quote the lines to change as the old text, or write the whole file"}
		case op.NoReplace:
			r.Message = "filled the empty file"
		default:
			if err := checkElision(rel, f.data, op.Content); err != nil {
				return err
			}
			r.Message = "replaced an existing file"
		}
		return w.setContent(f, data)
	case step.OpAppend:
		if !f.exists && op.MustExist {
			return &NotFoundError{Path: rel, Fix: "append_file needs an existing file; use write_file to create it"}
		}
		if op.AfterLine != nil {
			return w.insert(op, f, rel, r)
		}
		data := written(op, f, f.data)
		r.Message = "appended"
		return w.setContent(f, data)
	case step.OpReplace:
		if !f.exists {
			return &NotFoundError{Path: rel, Fix: "check the path (list the tree), or create the file with its whole content"}
		}
		if f.origLink {
			return w.setContent(f, nil) // refuses with the symlink message
		}
		// An edit whose old and new texts are equal changes nothing: it
		// is reported as a no-op and the others go on (DIALECTS.md); the
		// matcher, which would refuse it, never sees it.
		var edits []matcher.Edit
		var at []int // op.Edits index of each edit given to the matcher
		for i, ed := range op.Edits {
			if ed.Old == ed.New && ed.Old != "" {
				continue
			}
			edits = append(edits, matcher.Edit{Old: ed.Old, New: ed.New, Identifier: ed.Identifier,
				Anchors: ed.Anchors, Follows: ed.Follows, AtEnd: ed.AtEnd})
			at = append(at, i)
		}
		out, rs := f.data, []matcher.Result(nil)
		if len(edits) > 0 {
			var err error
			if out, rs, err = matcher.ReplaceAll(f.data, edits); err != nil {
				var ee *matcher.EditError
				if errors.As(err, &ee) {
					ee.Index = at[ee.Index] // the model's numbering
				}
				return err
			}
		}
		already, noop := 0, 0
		r.Replaces = make([]step.ReplaceResult, len(op.Edits))
		for i := range op.Edits {
			r.Replaces[i] = step.ReplaceResult{Index: i, NoOp: true}
		}
		noop = len(op.Edits) - len(rs)
		for j, m := range rs {
			r.Replaces[at[j]] = step.ReplaceResult{Index: at[j], Tier: m.Tier.String(), Matches: 1 + len(m.AppliedAt),
				AlreadyApplied: m.AlreadyApplied, StartLine: m.StartLine, EndLine: m.EndLine, AppliedAt: m.AppliedAt}
			if m.AlreadyApplied {
				already++
			}
		}
		switch {
		case noop == len(op.Edits):
			r.Status = step.StatusUnchanged
			r.Message = "no-op: the old and new texts are equal, so nothing changed; send only edits that change something"
		case already == len(rs) && noop == 0:
			r.Message = "already applied; nothing changed"
		case already == 0 && noop == 0:
			r.Message = "replaced"
		default:
			var parts []string
			if already > 0 {
				parts = append(parts, fmt.Sprintf("%d of %d edits were already applied", already, len(op.Edits)))
			}
			if noop > 0 {
				parts = append(parts, fmt.Sprintf("%d of %d edits were no-ops (old and new texts equal) and changed nothing", noop, len(op.Edits)))
			}
			r.Message = "replaced; " + strings.Join(parts, "; ")
		}
		for _, rr := range r.Replaces {
			if len(rr.AppliedAt) > 0 {
				r.Message += fmt.Sprintf("; edit %d: the old text also occurs at line(s) %s, where the edit is already applied, so line %d was the place",
					rr.Index+1, joinLines(rr.AppliedAt), rr.StartLine)
			}
		}
		return w.setContent(f, out)
	case step.OpDelete:
		if f.dir {
			if !op.Recursive {
				return &KindError{Path: rel, Is: "a folder", Fix: "delete a folder with recursive=true (fs.rm) or delete_directory"}
			}
			return w.deleteDir(rel, r)
		}
		if !f.exists {
			if op.Force {
				r.Status, r.Message = step.StatusUnchanged, "already absent"
				return nil
			}
			return &NotFoundError{Path: rel, Fix: "nothing to delete; check the path"}
		}
		if op.HasContent && !sameText(f.data, op.Content) {
			return &DeletedContentError{Path: rel}
		}
		f.exists, f.data = false, nil
		r.Message = "deleted"
		return nil
	case step.OpRmdir:
		if !f.dir {
			if f.exists {
				return &KindError{Path: rel, Is: "a file, not a folder", Fix: "delete a file with delete_file"}
			}
			return &NotFoundError{Path: rel, Fix: "no such folder; check the path"}
		}
		return w.deleteDir(rel, r)
	case step.OpMkdir:
		if f.dir {
			r.Status, r.Message = step.StatusUnchanged, "the folder already exists"
			return nil
		}
		if f.exists {
			return &ConflictPathError{Path: rel + "/", File: rel}
		}
		if err := w.parentsAreFolders(rel); err != nil {
			return err
		}
		w.dirs = append(w.dirs, rel)
		r.Message = "created the folder; git does not record empty folders, so it enters a commit with its first file"
		return nil
	case step.OpChmod:
		if !f.exists || f.origLink {
			return &NotFoundError{Path: rel, Fix: "chmod needs an existing regular file"}
		}
		m, err := strconv.ParseUint(strings.TrimSpace(op.Mode), 8, 32)
		if err != nil || len(strings.TrimSpace(op.Mode)) < 3 || len(strings.TrimSpace(op.Mode)) > 4 {
			return &step.Error{C: step.ClassUsage, Msg: fmt.Sprintf("mode %q is not an octal mode", op.Mode),
				Fix: `write the mode as 3 or 4 octal digits, e.g. "755" or "0644"`}
		}
		if m&0o111 != 0 {
			f.mode = gitops.ModeExec
		} else {
			f.mode = gitops.ModeFile
		}
		r.Message = "git records only the executable bit"
		return nil
	case step.OpMove:
		to, err := w.resolvePath(op.To)
		if err != nil {
			return err
		}
		if err := w.once(op, op.To, to); err != nil {
			return err
		}
		r.To = to
		if f.dir {
			return w.moveDir(rel, to, r)
		}
		if !f.exists || f.origLink {
			return &NotFoundError{Path: rel, Fix: "move needs an existing regular file or a folder; check the path"}
		}
		t, err := w.get(to)
		if err != nil {
			return err
		}
		if t.exists && !op.Overwrite {
			return &ExistsError{Path: to, Fix: "set overwrite to true to replace " + to + ", or move to another path"}
		}
		data, mode := f.data, f.mode
		f.exists, f.data = false, nil
		if err := w.setContent(t, data); err != nil {
			return err
		}
		t.mode = mode
		r.Message = "moved to " + to
		return nil
	}
	return &step.Error{C: step.ClassUsage, Msg: fmt.Sprintf("unknown operation %q", op.Kind),
		Fix: "the operations are write, append, replace, delete, move, mkdir, rmdir, chmod, read, list, search and diff"}
}

// deleteDir deletes the tracked files below rel; a folder that holds files
// git does not track is refused, since undo could not bring them back.
func (w *workspace) deleteDir(rel string, r *step.OpResult) error {
	tracked, err := w.e.trackedUnder(rel)
	if err != nil {
		return err
	}
	if err := w.untrackedIn(rel, tracked); err != nil {
		return err
	}
	for _, p := range tracked {
		// Each file passes the path policy as if deleted on its own: a
		// denied file or a submodule inside the folder refuses the op.
		if _, err := w.resolvePath(p); err != nil {
			return err
		}
		f, err := w.get(p)
		if err != nil {
			return err
		}
		f.exists, f.data = false, nil
	}
	r.Message = fmt.Sprintf("deleted %d file(s)", len(tracked))
	return nil
}

// untrackedIn refuses a folder that holds files git does not track: an op
// on the whole folder would lose them or leave them behind, and undo could
// not bring them back.
func (w *workspace) untrackedIn(rel string, tracked []string) error {
	var untracked []string
	isTracked := map[string]bool{}
	for _, p := range tracked {
		isTracked[p] = true
	}
	root := w.e.Repo.Abs(rel)
	walkDir(root, func(p string, d fs.DirEntry) {
		if d.IsDir() {
			return
		}
		if rp, ok := w.e.Repo.Rel(p); ok && !isTracked[rp] {
			untracked = append(untracked, rp)
		}
	})
	if len(untracked) > 0 {
		sort.Strings(untracked)
		if len(untracked) > 5 {
			untracked = append(untracked[:5], "…")
		}
		return &DirtyError{Path: rel, Why: "the folder holds files git does not track (" + strings.Join(untracked, ", ") + "); undo could not bring them back", Untracked: "folder"}
	}
	return nil
}

// status reports the branch and what git status calls changed. The step's
// own writes are not on disk yet, so this is the repository as the step
// found it.
func (w *workspace) status(r *step.OpResult) error {
	head, err := w.e.Repo.ReadHEAD()
	if err != nil {
		return err
	}
	dirty, err := w.e.Repo.Dirty()
	if err != nil {
		return err
	}
	var b strings.Builder
	if head.Branch != "" {
		fmt.Fprintf(&b, "on branch %s\n", strings.TrimPrefix(head.Branch, "refs/heads/"))
	} else {
		b.WriteString("HEAD detached\n")
	}
	if len(dirty) == 0 {
		b.WriteString("nothing to commit, working tree clean\n")
	}
	for _, p := range dirty {
		fmt.Fprintf(&b, "changed or untracked: %s\n", p)
	}
	r.Output = b.String()
	return nil
}

// written is the file's content after a write (old == nil) or an append
// of op.Content to old. The content keeps the line endings of the file it
// changes (matcher.KeepLineEndings; git's own conversion comes on top, in
// changes), and text lines (op.TextLines: Axon write_file, append_file)
// end with a line break, an append starting on a new line: the reference
// glued an append to the file's last line, which broke a Python file in the
// real history.
func written(op *step.Op, f *file, old []byte) []byte {
	content := op.Content
	// The style to keep: the file's when it has one, else the content's
	// own; "\n" when neither has one.
	style := op.Content
	if f.exists && !f.origLink {
		content = matcher.KeepLineEndings(f.data, content)
		style = f.data
	}
	eol := matcher.KeepLineEndings(style, []byte("\n"))
	if op.TextLines {
		if len(content) > 0 && content[len(content)-1] != '\n' {
			content = append(append([]byte{}, content...), eol...)
		}
		if len(old) > 0 && old[len(old)-1] != '\n' {
			old = append(append([]byte{}, old...), eol...)
		}
	}
	if old == nil {
		return content
	}
	return append(append([]byte{}, old...), content...)
}

// insert puts op.Content after line *op.AfterLine of f, counting lines as
// the text editor tool does: the text split at "\n", so a file ending in a
// line break has one more (empty) line, and inserting after it adds the
// text after that break. The inserted text takes the file's line endings.
func (w *workspace) insert(op *step.Op, f *file, rel string, r *step.OpResult) error {
	if !f.exists || f.origLink {
		return &NotFoundError{Path: rel, Fix: "insert needs an existing file; create it first"}
	}
	k, n := *op.AfterLine, bytes.Count(f.data, []byte("\n"))+1
	if k < 0 || k > n {
		return &step.Error{C: step.ClassStepFailed, Msg: fmt.Sprintf("insert_line %d is outside the file's lines [0, %d]", k, n),
			Fix: fmt.Sprintf("give insert_line from 0 (before the first line) to %d (after the last)", n)}
	}
	content := matcher.KeepLineEndings(f.data, op.Content)
	eol := matcher.KeepLineEndings(f.data, []byte("\n"))
	var out []byte
	already := false // the text is there already: the same answer sent again
	switch {
	case k == n:
		already = bytes.HasSuffix(f.data, append(append([]byte{}, eol...), content...))
		out = append(append(append(out, f.data...), eol...), content...)
	default:
		p := 0 // just past the k-th line break
		for range k {
			p += bytes.IndexByte(f.data[p:], '\n') + 1
		}
		// (or it ends the file, where an insert after the last line put it)
		already = bytes.HasPrefix(f.data[p:], append(append([]byte{}, content...), eol...)) || bytes.Equal(f.data[p:], content)
		out = append(append(append(append(out, f.data[:p]...), content...), eol...), f.data[p:]...)
	}
	if already && len(content) > 0 {
		r.Message = fmt.Sprintf("already inserted: the lines after line %d are this text; nothing changed", k)
		return nil
	}
	r.Message = fmt.Sprintf("inserted after line %d", k)
	return w.setContent(f, out)
}

// joinLines writes line numbers as "3, 7, 12".
func joinLines(ls []int) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = strconv.Itoa(l)
	}
	return strings.Join(s, ", ")
}

// moveDir moves every tracked file below the folder rel to the same place
// below to. Like deleteDir it refuses a folder holding files git does not
// track (the move would leave them behind, or undo could not bring them
// back), and it refuses a target that exists: merging two folders is a
// guess about which file wins.
func (w *workspace) moveDir(rel, to string, r *step.OpResult) error {
	if to == rel || strings.HasPrefix(to, rel+"/") {
		return &KindError{Path: to, Is: "inside " + rel, Fix: "a folder cannot move into itself; choose a target outside " + rel}
	}
	t, err := w.get(to)
	if err != nil {
		return err
	}
	if t.exists || t.dir {
		return &ExistsError{Path: to, Fix: "move the folder to a path that does not exist yet, or move its files one by one"}
	}
	tracked, err := w.e.trackedUnder(rel)
	if err != nil {
		return err
	}
	if len(tracked) == 0 {
		return &NotFoundError{Path: rel, Fix: "the folder holds no file git tracks; nothing to move"}
	}
	if err := w.untrackedIn(rel, tracked); err != nil {
		return err
	}
	for _, p := range tracked {
		// Both ends pass the path policy as if moved one by one.
		if _, err := w.resolvePath(p); err != nil {
			return err
		}
		dst := to + strings.TrimPrefix(p, rel)
		if _, err := w.resolvePath(dst); err != nil {
			return err
		}
		src, err := w.get(p)
		if err != nil {
			return err
		}
		d, err := w.get(dst)
		if err != nil {
			return err
		}
		data, mode := src.data, src.mode
		src.exists, src.data = false, nil
		if err := w.setContent(d, data); err != nil {
			return err
		}
		d.mode = mode
	}
	r.Message = fmt.Sprintf("moved the folder and its %d file(s) to %s", len(tracked), to)
	return nil
}

// read runs a read op; it sees the step's own earlier writes.
func (w *workspace) read(op *step.Op, rel string, r *step.OpResult) error {
	r.Status = step.StatusRead
	if f, ok := w.files[rel]; ok && op.Kind == step.OpRead && op.Read == nil {
		if !f.exists {
			return &NotFoundError{Path: rel, Fix: "check the path (list the tree first)"}
		}
		r.Output = string(f.data)
		return nil
	}
	o := *op
	o.Path = rel
	if op.Kind == step.OpDiff && op.To != "" {
		to, err := w.e.Policy.ResolveRead(op.To)
		if err != nil {
			return err
		}
		o.To = to
	}
	fsys, err := w.e.Policy.FS()
	if err != nil {
		return err
	}
	out, err := reads.Run(fsys, o, w.e.opts.MaxFileBytes)
	if err != nil {
		return err
	}
	r.Output = out
	return nil
}

// once refuses a second op of the step that writes the same file under
// another spelling (x.txt and ./x.txt), or writes its whole content again:
// one of the two would be lost without a word, and the model meant
// something else.
func (w *workspace) once(op *step.Op, raw, rel string) error {
	if w.written == nil {
		w.written = map[string]writer{}
	}
	prev, seen := w.written[rel]
	if seen && (prev.raw != raw || (prev.kind == step.OpWrite && op.Kind == step.OpWrite)) {
		return &DuplicatePathError{First: prev.raw, Second: raw, Path: rel}
	}
	if !seen {
		w.written[rel] = writer{raw: raw, kind: op.Kind}
	}
	return nil
}

type writer struct {
	raw  string
	kind step.OpKind
}

// DuplicatePathError is one file written twice in one step.
type DuplicatePathError struct{ First, Second, Path string }

func (e *DuplicatePathError) Error() string {
	if e.First == e.Second {
		return fmt.Sprintf("%q is written twice in one step", e.First)
	}
	return fmt.Sprintf("%q and %q name the same file (%s) in one step", e.First, e.Second, e.Path)
}

// Hint says what to do.
func (e *DuplicatePathError) Hint() string {
	return "write each file once per step, with its final content, under one spelling of its path"
}

// Class is step.ClassStepFailed.
func (e *DuplicatePathError) Class() step.Class { return step.ClassStepFailed }

// changes lists the paths whose state the step changes, against HEAD.
func (w *workspace) changes(headTree gitops.Hash) ([]pathChange, error) {
	var out []pathChange
	sort.Strings(w.order)
	for _, rel := range w.order {
		f := w.files[rel]
		old, ok, err := w.e.Repo.Lookup(headTree, rel)
		if err != nil {
			return nil, err
		}
		c := pathChange{Path: rel}
		if ok && old.Mode != gitops.ModeTree {
			c.Old = entry{Exists: true, Mode: old.Mode, Hash: old.Hash}
		}
		untouched := f.exists == f.origExists && bytes.Equal(f.data, f.origData)
		if f.exists {
			mode := f.mode
			if !w.e.fileMode && c.Old.Exists && f.mode == f.origMode {
				mode = c.Old.Mode // the worktree's executable bit does not count
			}
			if err := w.e.settle(f, c.Old); err != nil {
				return nil, err
			}
			c.New = entry{Exists: true, Mode: mode, Hash: gitops.BlobHash(f.blob)}
		}
		if c.Old.same(c.New) && f.exists == f.origExists && (untouched || bytes.Equal(f.data, f.origData)) {
			// Nothing git would see: also a file git checkout would write
			// otherwise, which the step did not change, stays as it is.
			f.data = f.origData
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// guard refuses a step that would touch the user's uncommitted work: every
// changed path must be the same in the worktree, the index and HEAD.
func (w *workspace) guard(ch []pathChange, ix *index.Index) error {
	for _, c := range ch {
		f := w.files[c.Path]
		for _, st := range ix.Stages(c.Path) {
			if st.Stage != 0 {
				return &DirtyError{Path: c.Path, Why: "it has unresolved merge conflicts"}
			}
		}
		ie, inIndex := ix.Entry(c.Path)
		if inIndex && ie.IntentToAdd {
			return &DirtyError{Path: c.Path, Why: "it is staged with git add -N (intent to add)"}
		}
		if inIndex != c.Old.Exists || (inIndex && (gitops.Hash(ie.Hash) != c.Old.Hash || !w.e.sameMode(ie.Mode, c.Old.Mode))) {
			return &DirtyError{Path: c.Path, Why: "it has staged changes"}
		}
		switch {
		case f.origDir:
			return &DirtyError{Path: c.Path, Why: "it is a folder in the worktree"}
		case f.origExists && !inIndex:
			return &DirtyError{Path: c.Path, Why: "it is an untracked file that the step would overwrite", Untracked: "file"}
		case !f.origExists && inIndex:
			return &DirtyError{Path: c.Path, Why: "it is deleted in the worktree but the deletion is not committed"}
		case f.origExists && (!w.e.matchesBlob(c.Path, f.origData, gitops.Hash(ie.Hash), gitops.Hash(ie.Hash)) || !w.e.sameMode(f.origMode, ie.Mode)):
			return &DirtyError{Path: c.Path, Why: "it has uncommitted changes"}
		}
	}
	return nil
}

func (e *Engine) sameMode(a, b uint32) bool {
	if !e.fileMode && a != gitops.ModeSymlink && b != gitops.ModeSymlink {
		return true
	}
	return a == b
}

// namesLookAlikes puts in front of the hint of a path that does not exist
// the tracked files it probably meant: models often guess where a file
// lies (main.go for cmd/tool/main.go) or how its name is spelt.
func (e *Engine) namesLookAlikes(err error) {
	var fix *string
	var rel string
	var nf *NotFoundError
	var rnf *reads.NotFoundError
	switch {
	case errors.As(err, &nf):
		rel, fix = nf.Path, &nf.Fix
	case errors.As(err, &rnf):
		rel, fix = rnf.Path, &rnf.Fix
	default:
		return
	}
	tracked, terr := e.trackedUnder("")
	if terr != nil || rel == "" {
		return
	}
	// Names compare without their extension, which must be the same: to
	// Closest, two names that share only ".txt" are alike.
	ext := path.Ext(rel)
	stem := func(p string) string { return strings.TrimSuffix(path.Base(p), path.Ext(p)) }
	var stems []string
	seen := map[string]bool{}
	for _, p := range tracked {
		if b := stem(p); strings.EqualFold(path.Ext(p), ext) && !seen[b] {
			seen[b] = true
			stems = append(stems, b)
		}
	}
	meant := suggest.Closest(stem(rel), stems)
	if meant == "" {
		return
	}
	var alike []string
	for _, p := range tracked {
		if p != rel && strings.EqualFold(stem(p), meant) && strings.EqualFold(path.Ext(p), ext) {
			alike = append(alike, p)
		}
	}
	if len(alike) == 0 {
		return
	}
	sort.SliceStable(alike, func(i, j int) bool { return len(alike[i]) < len(alike[j]) })
	if len(alike) > 3 {
		alike = alike[:3]
	}
	s := alike[len(alike)-1]
	if len(alike) > 1 {
		s = strings.Join(alike[:len(alike)-1], ", ") + " or " + s
	}
	*fix = "did you mean " + s + "? " + *fix
}

// trackedUnder lists the index's stage-0 paths below dir (from the index in
// memory during a run: the file may not hold the last steps yet).
func (e *Engine) trackedUnder(dir string) ([]string, error) {
	if e.held != nil {
		return e.held.ix.HasPrefix(dir), nil
	}
	ix, err := e.Repo.ReadIndex()
	if err != nil {
		return nil, err
	}
	return ix.HasPrefix(dir), nil
}

// sameText reports whether two texts are equal once "\r\n" is read as "\n".
func sameText(a, b []byte) bool {
	crlf := []byte("\r\n")
	return bytes.Equal(bytes.ReplaceAll(a, crlf, []byte("\n")), bytes.ReplaceAll(b, crlf, []byte("\n")))
}

// DeletedContentError is a delete whose quoted content (a unified diff's
// "-" lines) is not what the file holds: the model deletes a file it has
// not seen as it is.
type DeletedContentError struct{ Path string }

func (e *DeletedContentError) Error() string {
	return fmt.Sprintf("%s does not hold the lines the deletion quotes: it was not deleted", e.Path)
}

// Hint says what to do.
func (e *DeletedContentError) Hint() string {
	return "read " + e.Path + " again and quote its whole current content in the deletion, or delete it without quoting it"
}

// Class is a failed precondition: the file is not as the step expects.
func (e *DeletedContentError) Class() step.Class { return step.ClassPrecondition }
