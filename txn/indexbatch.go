package txn

// Index batching: the engine holds index.lock from the first step of a run
// to Flush, updates the touched entries in memory, and records the entries
// it owes in the index debt file so that recovery can settle them.

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/autocoder/autocoder/step"
	"os"
	"sort"
	"strings"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/index"
)

// heldIndex is index.lock with the index read under it. The engine keeps
// it from the first step of a run to Flush: each step updates the touched
// entries in memory, and the index is written once (see Flush).
type heldIndex struct {
	lock *gitops.LockFile
	ix   *index.Index
	from os.FileInfo // the index file's stat under the lock, nil if unknown
	// splits: the index prepareIndex wrote is the first split one that
	// autocoder chose (said once, by finishIndex).
	splits bool
}

// lockIndex takes index.lock (through our private name, see gitops.LockVia)
// and reads the index under it, as git's protocol requires. The index this
// engine wrote last is kept in memory: when the file under the lock is still
// that one (same inode, size and mtime: git replaces the index by rename, so
// any change of git's is a new inode), reading and verifying 10 MB again at
// every step of a run on a large repository is skipped.
func (e *Engine) lockIndex() (*heldIndex, error) {
	if e.held != nil {
		return e.held, nil // ours since an earlier step; the copy in memory is the index
	}
	lock, err := e.repo.LockIndex(e.priv)
	if err != nil {
		return nil, err
	}
	from, _ := e.repo.IndexStat()
	if e.ixCache != nil && from != nil && gitops.Unchanged(from, e.ixStat) {
		e.held = &heldIndex{lock: lock, ix: e.ixCache, from: from}
		return e.held, nil
	}
	e.ixCache = nil
	ix, err := e.repo.ReadIndex()
	if err != nil {
		lock.Rollback()
		return nil, err
	}
	if len(e.debt) > 0 {
		// A Flush of this engine failed: the entries it owes are not in
		// the file. They are HEAD's (every step that owed them committed
		// or was rolled back to HEAD), but for those the user staged
		// since, as recovery has them (settleDebt).
		if err := e.toHEADEntries(ix, unchangedSince(ix, e.debt)); err != nil {
			lock.Rollback()
			return nil, err
		}
	}
	e.held = &heldIndex{lock: lock, ix: ix, from: from}
	return e.held, nil
}

// Flush writes the index that the steps since the last Flush updated in
// memory, and releases index.lock. Close calls it; callers that report
// errors call it first. At 100k files the index is 10 MB: writing it once
// per run instead of once per step is most of a step's cost. Between the
// steps, the paths whose entries are only in memory are listed in the
// index debt file, which recovery settles after a crash.
func (e *Engine) Flush() error {
	h := e.held
	if h == nil {
		return nil
	}
	if len(e.debt) == 0 {
		e.held = nil
		h.lock.Rollback()
		return nil
	}
	if err := e.writeIndex(); err != nil {
		return &step.Error{Msg: "write the index", Err: err,
			Fix: "the next autocoder command sets the entries of " + strings.Join(sortedKeys(e.debt), ", ") + " again"}
	}
	e.debt = nil
	return retireFile(e.debtPath())
}

// writeIndex writes the index held under index.lock and releases the lock
// (also when the write fails).
func (e *Engine) writeIndex() error {
	if err := e.prepareIndex(); err != nil {
		return err
	}
	return e.finishIndex()
}

// prepareIndex writes the index held under index.lock into the lock file,
// which stays held (index.PrepareIndex); finishIndex puts it in place,
// dropIndex takes it back. On failure the lock is released.
func (e *Engine) prepareIndex() error {
	h := e.held
	// Whether to split is decided at each write, with the configuration
	// as it is now: an index kept in memory across a session's calls
	// (ixCache) is written whole at the first write after the user set
	// core.splitIndex=false, as git's next write would (tweak_split_index).
	e.repo.ConfigureSplit(h.ix, e.opts.SplitIndex)
	// The first split write of an index whose split nobody configured,
	// made because of its size (gitops.SplitFrom), is autocoder's choice:
	// the user hears of it once. A session splits any index (Options.
	// SplitIndex), as it always did, without a word. core.splitIndex set
	// to a boolean (a key without "=" is true) is the user's choice; a
	// value git does not read as one leaves it open, as for git.
	_, configured := e.repo.ConfigBool("core", "splitIndex")
	h.splits = h.ix.Split() && !h.ix.Linked() && h.ix.Len() >= gitops.SplitFrom && !configured
	if err := index.PrepareIndex(h.lock, h.ix); err != nil {
		e.held = nil
		return err
	}
	return nil
}

// dropIndex releases index.lock with the index prepareIndex wrote into it
// unused: the index file stays as it was, and the index in memory, which
// holds the entries that were not written, is forgotten.
func (e *Engine) dropIndex() {
	e.held.lock.Rollback()
	e.held, e.ixCache = nil, nil
}

// finishIndex puts the index prepareIndex wrote in place and releases the
// lock (also when that fails).
func (e *Engine) finishIndex() error {
	h := e.held
	e.held = nil
	if err := index.FinishIndex(h.lock, h.ix); err != nil {
		return err
	}
	if fi, err := e.repo.IndexStat(); err == nil {
		e.ixCache, e.ixStat = h.ix, fi
		// Our write adds no submodule: what isGitlink read from the
		// index we started from still holds for the one we wrote.
		if e.gitlinks != nil && e.gitlinksAt != nil && h.from != nil && gitops.Unchanged(h.from, e.gitlinksAt) {
			e.gitlinksAt = fi
		}
	}
	if h.splits && !e.opts.Quiet {
		fmt.Fprintf(e.opts.Log, "autocoder: the index has %d entries: wrote it as git's split index, so that a step writes the entries it changed, not the whole file; git keeps it split. Tools built on libgit2 or go-git cannot read a split index: `git config core.splitIndex false` keeps it whole for them\n", h.ix.Len())
	}
	return nil
}

func (e *Engine) debtPath() string { return e.priv.Path("index-debt.json") }

// readDebt reads what a killed run still owes (an empty map when nothing).
// A file that does not decode is an error, never taken for an empty one:
// the entries it lists would be lost when the next step rewrites it.
func (e *Engine) readDebt() (map[string]entry, error) {
	owed := map[string]entry{}
	b, err := os.ReadFile(e.debtPath())
	if errors.Is(err, os.ErrNotExist) {
		return owed, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &owed)
	}
	if err != nil {
		return nil, &step.Error{C: step.ClassInternal, Msg: "read " + e.debtPath(), Err: err,
			Fix: "move the file away, then compare `git diff --cached` with what you staged: the index entries it lists may be stale"}
	}
	return owed, nil
}

// owe records paths whose index entries are, for now, only in memory,
// each with the entry the index file holds for it (ix must not yet have the
// path changed in memory), so that recovery settles only entries nobody
// changed since.
func (e *Engine) owe(paths []pathChange, ix *index.Index) error {
	if e.debt == nil {
		// Start from what a killed run still owes, so that recovery's own
		// moves never drop it from the file.
		owed, err := e.readDebt()
		if err != nil {
			return err
		}
		e.debt = owed
	}
	grew := false
	for _, c := range paths {
		if _, ok := e.debt[c.Path]; ok {
			continue
		}
		var was entry
		if ie, ok := ix.Entry(c.Path); ok {
			was = entry{Exists: true, Mode: ie.Mode, Hash: gitops.Hash(ie.Hash)}
		}
		e.debt[c.Path], grew = was, true
	}
	if !grew {
		return nil
	}
	b, _ := json.Marshal(e.debt)
	return replaceFile(e.debtPath(), b)
}

func sortedKeys(m map[string]entry) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// settleDebt sets the index entries a killed run left only in memory to
// the state of HEAD, and writes the index. An entry that is no longer the
// one the index file held before the run (the user removed the lock a
// killed run left and staged something) is the user's: it stays.
func (e *Engine) settleDebt() error {
	owed, err := e.readDebt()
	if err != nil || len(owed) == 0 {
		return err
	}
	held, err := e.lockIndex()
	if err != nil {
		return err
	}
	paths := unchangedSince(held.ix, owed)
	if err := e.toHEADEntries(held.ix, paths); err != nil {
		return err
	}
	if e.debt == nil {
		e.debt = owed
	}
	fmt.Fprintf(e.opts.Log, "autocoder: set the index entries of %d path(s) that an interrupted run had not written yet\n", len(paths))
	return e.Flush()
}

// unchangedSince lists, sorted, the owed paths whose entry in ix is still
// the one the index file held before the run that owes them: an entry
// that changed since is the user's (staged after the run left it owed),
// and stays.
func unchangedSince(ix *index.Index, owed map[string]entry) []string {
	var paths []string
	for p, was := range owed {
		ie, ok := ix.Entry(p)
		now := entry{}
		if ok {
			now = entry{Exists: true, Mode: ie.Mode, Hash: gitops.Hash(ie.Hash)}
		}
		if now.same(was) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths
}

// toHEADEntries sets the entries of paths in ix to HEAD's, with stat data
// where the file matches (else blank, so that git looks at the file).
func (e *Engine) toHEADEntries(ix *index.Index, paths []string) error {
	head, err := e.repo.ReadHEAD()
	if err != nil {
		return err
	}
	tree, err := e.treeOf(head.Hash)
	if err != nil {
		return err
	}
	var set []index.IndexEntry
	var remove []string
	for _, p := range paths {
		te, ok, err := e.repo.Lookup(tree, p)
		if err != nil {
			return err
		}
		if !ok || te.Mode == gitops.ModeTree {
			remove = append(remove, p)
			continue
		}
		var st index.Stat
		if data, err := os.ReadFile(e.repo.Abs(p)); err == nil && e.matchesBlob(p, data, te.Hash, te.Hash) {
			if fi, err := os.Lstat(e.repo.Abs(p)); err == nil {
				st = index.StatOf(fi)
			}
		}
		set = append(set, index.IndexEntry{Path: p, Mode: te.Mode, Hash: te.Hash, Stat: st})
	}
	e.ixCache = nil
	return ix.Update(set, remove)
}
