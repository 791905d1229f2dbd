package txn

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"syscall"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/index"
	"github.com/autocoder/autocoder/pathpolicy"
	"github.com/autocoder/autocoder/step"
)

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
		full := w.e.repo.Abs(rel)
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
				return nil, &pathpolicy.RefusedError{Path: rel, Why: fmt.Sprintf("the file has %d bytes, over the limit of %d", fi.Size(), w.e.opts.MaxFileBytes),
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
			return nil, &pathpolicy.RefusedError{Path: rel, Why: "it is not a regular file", Fix: "steps change regular files only"}
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
		return &pathpolicy.RefusedError{Path: f.rel, Why: "it is a symbolic link; autocoder never writes through one",
			Fix: "write to the file the link points to, if it is inside the repository"}
	}
	if err := w.parentsAreFolders(f.rel); err != nil {
		return err
	}
	if int64(len(data)) > w.e.opts.MaxFileBytes {
		return &pathpolicy.RefusedError{Path: f.rel, Why: fmt.Sprintf("the new content has %d bytes, over the limit of %d ([apply] max_file_bytes)", len(data), w.e.opts.MaxFileBytes),
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
		fi, err := os.Lstat(w.e.repo.Abs(d))
		if err == nil && !fi.IsDir() {
			if f, ok := w.files[d]; ok && !f.exists {
				continue // deleted by this step
			}
			return &ConflictPathError{Path: rel, File: d}
		}
	}
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

// changes lists the paths whose state the step changes, against HEAD.
func (w *workspace) changes(headTree gitops.Hash) ([]pathChange, error) {
	var out []pathChange
	sort.Strings(w.order)
	for _, rel := range w.order {
		f := w.files[rel]
		old, ok, err := w.e.repo.Lookup(headTree, rel)
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

// trackedUnder lists the index's stage-0 paths below dir (from the index in
// memory during a run: the file may not hold the last steps yet).
func (e *Engine) trackedUnder(dir string) ([]string, error) {
	if e.held != nil {
		return e.held.ix.HasPrefix(dir), nil
	}
	ix, err := e.repo.ReadIndex()
	if err != nil {
		return nil, err
	}
	return ix.HasPrefix(dir), nil
}
