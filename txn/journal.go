package txn

// The journal: a plan is written under the engine's folder in .git before
// the first change of a transaction and removed after the last.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/autocoder/autocoder/gitops"
)

// entry is one path's state in a commit: absent, or a blob with a mode.
type entry struct {
	Exists bool        `json:"exists"`
	Mode   uint32      `json:"mode,omitempty"`
	Hash   gitops.Hash `json:"hash"`
}

func (a entry) same(b entry) bool {
	return a.Exists == b.Exists && (!a.Exists || (a.Mode == b.Mode && a.Hash == b.Hash))
}

// pathChange is one path a transaction moves from Old to New.
type pathChange struct {
	Path string `json:"path"`
	Old  entry  `json:"old"`
	New  entry  `json:"new"`
}

// plan is everything one transaction changes, and all that is needed to
// move it back: the touched paths (worktree file and index entry) with their
// states before and after, the branch ref and HEAD. Apply, undo, redo and
// the rollback of --atomic are all plans. The plan is the journal: it is
// written under .git before the first change and removed after the last.
type plan struct {
	Kind    string       `json:"kind"` // apply, undo, redo, rollback
	StepID  string       `json:"step_id"`
	Ref     string       `json:"ref"` // refs/heads/autocoder/…
	OldRef  gitops.Hash  `json:"old_ref"`
	NewRef  gitops.Hash  `json:"new_ref"` // zero: delete the ref
	OldHEAD string       `json:"old_head"`
	NewHEAD string       `json:"new_head"`
	Paths   []pathChange `json:"paths"`
	Dirs    []string     `json:"dirs,omitempty"` // empty folders created (mkdir)
	// NewDirs are the folders the plan creates (for its files or mkdir),
	// deepest last; going back removes them again if they are empty, and no
	// other folder.
	NewDirs []string `json:"new_dirs,omitempty"`
	Message string   `json:"message"` // reflog message
	// HeadFrom and HeadTo are the commits HEAD names before and after, for
	// the reflog line of a HEAD change (a new branch, --atomic's return).
	HeadFrom gitops.Hash `json:"head_from"`
	HeadTo   gitops.Hash `json:"head_to"`
	// Tmp is the random token in the names of the plan's temporary files
	// (see tmpName), so that recovery removes those and nothing else.
	Tmp string `json:"tmp,omitempty"`
	// Back: the forward move failed and its rollback began. Recovery
	// finishes the rollback wherever the ref is: the step was reported
	// failed, even where its ref had moved (a failure after the commit
	// point), and must not be committed by the next command.
	Back bool `json:"back,omitempty"`
	// Redo is the branch's redo stack once the plan is whole: an undo's
	// or redo's (see move), an apply's (empty), --atomic's rollback's (the
	// stack the run found); nil leaves it as it is.
	Redo *[]string `json:"redo,omitempty"`

	content map[string][]byte // new contents in memory (apply), else read from blobs
	who     gitops.Signature
	verify  func() error // runs once the files are written (apply with [verify])
	// ctx, when set, cancels a forward move up to its commit point: the
	// last look is just before HEAD and the ref are written.
	ctx context.Context
	// recovering: a path whose content is neither the plan's old nor its new
	// state was changed by the user after the crash; it is left as it is.
	recovering bool
	kept       []string
	// reached is the paths a forward move has placed; only, when set, the
	// paths a move touches (files and index entries), the others left as
	// they are. The rollback of a failed forward move is limited to what
	// it reached: a path it never got to is as it was, and rewriting it
	// with its own content would make a new file (a new mtime) and need
	// room that a full disk, a likely reason for the failure, lacks.
	reached, only map[string]bool
	// ixWritten: a forward move of a transaction of its own put its
	// index in place; the rollback of one that did not leaves the file
	// alone.
	ixWritten bool
}

// moving is the paths a move touches (see only), in the plan's order.
func (p *plan) moving() []pathChange {
	if p.only == nil {
		return p.Paths
	}
	var out []pathChange
	for _, c := range p.Paths {
		if p.only[c.Path] {
			out = append(out, c)
		}
	}
	return out
}

func (e *Engine) journalPath() string { return e.priv.Path("journal.json") }

func (e *Engine) writeJournal(p *plan) error {
	if p.Tmp == "" {
		p.Tmp = newToken()
	}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if err := replaceFile(e.journalPath(), b); err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	return nil
}

func (e *Engine) clearJournal() error {
	if err := retireFile(e.journalPath()); err != nil {
		return fmt.Errorf("clear journal: %w", err)
	}
	return nil
}

// replaceFile writes one of the engine's own files (the journal, the index
// debt) whole: into name+".tmp", then renamed over name, so that a reader
// (recovery) sees the old content or the new, never a torn file.
//
// No fsync, as git by default fsyncs none of the files a commit writes:
// what these files protect against is a killed process, and the kernel
// keeps written data across that. (An fsync here also flushed the previous
// step's 10 MB index on ext4, a third of a step at 100k files.)
func replaceFile(name string, b []byte) error {
	tmp := name + ".tmp"
	f, err := gitops.OpenOwn(tmp, os.O_WRONLY)
	if err != nil {
		return err
	}
	// Written over, not truncated first: truncating frees the file's
	// block, which costs 0.1 ms there, and the new content takes it
	// again. Nor cut after, when the new content is a little shorter
	// (the next step's journal is as often shorter as longer): the rest
	// is filled with spaces, which JSON reads as nothing. Cutting a file
	// shorter costs as much on ext4 (0.1 ms; cutting it to its own
	// length, 15 µs), as ext4 writes its last block back first.
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	if short := size - int64(len(b)); short > 0 && short <= maxPad {
		b = append(b[:len(b):len(b)], bytes.Repeat([]byte{' '}, int(short))...)
	}
	_, err = f.Write(b)
	if err == nil && int64(len(b)) < size {
		err = f.Truncate(int64(len(b)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = gitops.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// maxPad is the most that replaceFile fills with spaces rather than cut:
// past it, the file is cut to its content once.
const maxPad = 4096

// retireFile removes name as replaceFile's reader sees it: renamed back to
// name+".tmp", where the next replaceFile reuses the file. Creating a file
// (a new inode) costs far more than rewriting one on some file systems
// (0.5-0.9 ms against 20 µs on the ext4 the benchmarks ran on), and these
// two files are written at every step.
func retireFile(name string) error {
	err := gitops.Rename(name, name+".tmp")
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
