package txn

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

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

	content map[string][]byte // new contents in memory (apply), else read from blobs
	who     gitops.Signature
	verify  func() error // runs once the files are written (apply with [verify])
	// recovering: a path whose content is neither the plan's old nor its new
	// state was changed by the user after the crash; it is left as it is.
	recovering bool
	kept       []string
}

func (e *Engine) journalPath() string { return filepath.Join(e.dir, "journal.json") }
func (e *Engine) own(name string) string {
	return filepath.Join(e.dir, "own-"+name)
}

func (e *Engine) writeJournal(p *plan) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	tmp := e.journalPath() + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	// No fsync, as git by default fsyncs none of the files a commit writes:
	// what the journal protects against is a killed process, and the kernel
	// keeps written data across that. (An fsync here also flushed the
	// previous step's 10 MB index on ext4, a third of a step at 100k files.)
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, e.journalPath())
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write journal: %w", err)
	}
	return nil
}

func (e *Engine) clearJournal() error {
	if err := os.Remove(e.journalPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("clear journal: %w", err)
	}
	return nil
}

// execute runs a plan as a transaction: journal, move forward, clear; on a
// failure move back and clear. held is an index lock the caller already
// holds (with the index read under it), or nil.
func (e *Engine) execute(p *plan, held *heldIndex) error {
	if _, err := os.Stat(e.journalPath()); err == nil {
		// A rollback that failed kept its journal: a new one must not
		// overwrite it. The next Open recovers it.
		return fmt.Errorf("an interrupted transaction's journal is still in %s; hint: run any autocoder command again: it finishes that transaction first", e.journalPath())
	}
	if err := e.writeJournal(p); err != nil {
		return err
	}
	if err := e.crash.point(); err != nil {
		e.clearJournal()
		return err
	}
	if wrote, err := e.moveTo(p, true, held); err != nil {
		if !wrote {
			// Refused before the first write (a lock held by git, a moved
			// ref): there is nothing to take back.
			e.clearJournal()
			return err
		}
		if _, rb := e.moveTo(p, false, nil); rb != nil {
			return fmt.Errorf("%w; rolling back failed too: %v; the journal %s is kept and the next autocoder command finishes the rollback", err, rb, e.journalPath())
		}
		e.clearJournal()
		return err
	}
	e.crash.point() // a failure here is past the commit point: ignored
	return e.clearJournal()
}

// heldIndex is index.lock with the index read under it. The engine keeps
// it from the first step of a run to Flush: each step updates the touched
// entries in memory, and the index is written once (see Flush).
type heldIndex struct {
	lock *gitops.LockFile
	ix   *gitops.Index
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
	p := filepath.Join(e.Repo.GitDir, "index")
	lock, err := gitops.LockVia(p, e.own("index"))
	if err != nil {
		return nil, err
	}
	if e.ixCache != nil {
		if fi, err := os.Stat(p); err == nil && sameFileState(fi, e.ixStat) {
			e.held = &heldIndex{lock: lock, ix: e.ixCache}
			return e.held, nil
		}
	}
	e.ixCache = nil
	ix, err := gitops.ReadIndex(p)
	if err != nil {
		lock.Rollback()
		return nil, err
	}
	if len(e.debt) > 0 {
		// A Flush of this engine failed: the entries it owes are not in
		// the file. They are HEAD's (every step that owed them committed
		// or was rolled back to HEAD).
		if err := e.toHEADEntries(ix, sortedKeys(e.debt)); err != nil {
			lock.Rollback()
			return nil, err
		}
	}
	e.held = &heldIndex{lock: lock, ix: ix}
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
	e.held = nil
	if len(e.debt) == 0 {
		h.lock.Rollback()
		return nil
	}
	if err := gitops.WriteIndex(h.lock, h.ix); err != nil {
		return fmt.Errorf("write the index: %w; hint: the next autocoder command sets the entries of %s again", err, strings.Join(sortedKeys(e.debt), ", "))
	}
	if fi, err := os.Stat(filepath.Join(e.Repo.GitDir, "index")); err == nil {
		e.ixCache, e.ixStat = h.ix, fi
	}
	e.debt = nil
	if err := os.Remove(e.debtPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

func (e *Engine) debtPath() string { return filepath.Join(e.dir, "index-debt.json") }

// owe records paths whose index entries are, for now, only in memory,
// each with the entry the index file holds for it (ix must not yet have the
// path changed in memory), so that recovery settles only entries nobody
// changed since.
func (e *Engine) owe(paths []pathChange, ix *gitops.Index) error {
	if e.debt == nil {
		// Start from what a killed run still owes, so that recovery's own
		// moves never drop it from the file.
		e.debt = map[string]entry{}
		if b, err := os.ReadFile(e.debtPath()); err == nil {
			json.Unmarshal(b, &e.debt)
		}
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
	tmp := e.debtPath() + ".tmp"
	if err := os.WriteFile(tmp, b, 0o666); err != nil {
		return err
	}
	return os.Rename(tmp, e.debtPath())
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
	b, err := os.ReadFile(e.debtPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var owed map[string]entry
	if err := json.Unmarshal(b, &owed); err != nil {
		return fmt.Errorf("read %s: %w; hint: move it away and check git status", e.debtPath(), err)
	}
	held, err := e.lockIndex()
	if err != nil {
		return err
	}
	var paths []string
	for p, was := range owed {
		ie, ok := held.ix.Entry(p)
		now := entry{}
		if ok {
			now = entry{Exists: true, Mode: ie.Mode, Hash: gitops.Hash(ie.Hash)}
		}
		if now.same(was) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	if err := e.toHEADEntries(held.ix, paths); err != nil {
		return err
	}
	if e.debt == nil {
		e.debt = owed
	}
	fmt.Fprintf(e.opts.Log, "autocoder: set the index entries of %d path(s) that an interrupted run had not written yet\n", len(paths))
	return e.Flush()
}

// toHEADEntries sets the entries of paths in ix to HEAD's, with stat data
// where the file matches (else blank, so that git looks at the file).
func (e *Engine) toHEADEntries(ix *gitops.Index, paths []string) error {
	head, err := e.Repo.ReadHEAD()
	if err != nil {
		return err
	}
	tree, err := e.treeOf(head.Hash)
	if err != nil {
		return err
	}
	var set []gitops.IndexEntry
	var remove []string
	for _, p := range paths {
		te, ok, err := e.Repo.Lookup(tree, p)
		if err != nil {
			return err
		}
		if !ok || te.Mode == gitops.ModeTree {
			remove = append(remove, p)
			continue
		}
		var st gitops.Stat
		if data, err := os.ReadFile(e.Repo.Abs(p)); err == nil && gitops.BlobHash(data) == te.Hash {
			if fi, err := os.Lstat(e.Repo.Abs(p)); err == nil {
				st = gitops.StatOf(fi)
			}
		}
		set = append(set, gitops.IndexEntry{Path: p, Mode: te.Mode, Hash: te.Hash, Stat: st})
	}
	e.ixCache = nil
	return ix.Update(set, remove)
}

// sameFileState reports whether two stats describe the same, unchanged file.
func sameFileState(a, b os.FileInfo) bool {
	if a == nil || b == nil || a.Size() != b.Size() || !a.ModTime().Equal(b.ModTime()) {
		return false
	}
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sa.Dev == sb.Dev && sa.Ino == sb.Ino && sa.Ctim == sb.Ctim
}

// moveTo brings the worktree files, the index entries, the ref and HEAD of
// the plan to its New state (forward) or its Old state. It is idempotent,
// so recovery can call it whatever point a killed run had reached.
//
// wrote reports whether anything had been written when it returned.
func (e *Engine) moveTo(p *plan, forward bool, held *heldIndex) (wrote bool, err error) {
	target := func(c pathChange) entry {
		if forward {
			return c.New
		}
		return c.Old
	}
	// Both locks before the first write, so that a lock held by git is a
	// clean refusal rather than a rollback.
	if held == nil {
		if held, err = e.lockIndex(); err != nil {
			return false, err
		}
	}
	refTxn, err := e.lockRef(p, forward)
	if err != nil {
		return false, err
	}
	headTxn, err := e.lockHEAD(p, forward)
	if err != nil {
		if refTxn != nil {
			refTxn.Rollback()
		}
		return false, err
	}
	release := func() {
		if refTxn != nil {
			refTxn.Rollback()
		}
		if headTxn != nil {
			headTxn.Rollback()
		}
	}
	// Worktree files. Deletions first, so a file may replace a folder that
	// the same plan empties, and the reverse.
	for pass := 0; pass < 2; pass++ {
		for _, c := range p.Paths {
			t := target(c)
			if (pass == 0) == t.Exists {
				continue
			}
			wrote = true
			if p.recovering && !e.isEither(c) {
				p.kept = append(p.kept, c.Path)
				continue
			}
			if err := e.placeFile(p, c.Path, t, forward); err != nil {
				release()
				return true, err
			}
			if err := e.crash.point(); err != nil {
				release()
				return true, err
			}
		}
	}
	if forward {
		for _, d := range p.Dirs {
			if err := os.MkdirAll(e.Repo.Abs(d), 0o777); err != nil {
				release()
				return true, fmt.Errorf("create folder %s: %w", d, err)
			}
		}
	} else {
		for i := len(p.NewDirs) - 1; i >= 0; i-- {
			os.Remove(e.Repo.Abs(p.NewDirs[i])) // only if empty
		}
	}
	if forward && p.verify != nil {
		if err := p.verify(); err != nil {
			release()
			return true, err
		}
	}
	// Index entries of the touched paths only.
	var set []gitops.IndexEntry
	var remove []string
	for _, c := range p.Paths {
		t := target(c)
		if !t.Exists {
			remove = append(remove, c.Path)
			continue
		}
		var st gitops.Stat // blank stat data: git re-reads the file
		if !contains(p.kept, c.Path) {
			fi, err := os.Lstat(e.Repo.Abs(c.Path))
			if err != nil {
				release()
				return true, fmt.Errorf("stat %s: %w", c.Path, err)
			}
			st = gitops.StatOf(fi)
		}
		set = append(set, gitops.IndexEntry{Path: c.Path, Mode: t.Mode, Hash: t.Hash, Stat: st})
	}
	e.ixCache = nil // Update changes it in memory before it is on disk
	if err := e.owe(p.Paths, held.ix); err != nil {
		release()
		return true, fmt.Errorf("record the index entries to write: %w", err)
	}
	if err := held.ix.Update(set, remove); err != nil {
		release()
		return true, fmt.Errorf("update the index: %w", err)
	}
	release = func() {
		if refTxn != nil {
			refTxn.Rollback()
		}
		if headTxn != nil {
			headTxn.Rollback()
		}
	}
	if err := e.crash.point(); err != nil {
		release()
		return true, err
	}
	// HEAD before the ref, in both directions: HEAD's reflog then reads in
	// order (the checkout, then the commit), and a crash between the two
	// leaves the ref unmoved, so recovery goes back.
	if headTxn != nil {
		err := headTxn.Commit()
		headTxn = nil
		if err != nil {
			release()
			return true, err
		}
	}
	if err := e.crash.point(); err != nil {
		release()
		return true, err
	}
	// The branch ref: the commit point of a forward move.
	if refTxn == nil {
		return true, nil
	}
	return true, refTxn.Commit()
}

// lockRef takes the branch ref's lock for a move, verifying under the lock
// that the ref is where the plan says it comes from (or already where it
// goes: then there is nothing to do and no lock).
func (e *Engine) lockRef(p *plan, forward bool) (*gitops.RefTxn, error) {
	want, other := p.NewRef, p.OldRef
	if !forward {
		want, other = p.OldRef, p.NewRef
	}
	cur, _, err := e.Repo.ResolveRef(p.Ref)
	if err != nil {
		return nil, err
	}
	if cur == want {
		return nil, nil
	}
	if cur != other {
		return nil, &gitops.RefChangedError{Ref: p.Ref, Want: other, Got: cur}
	}
	msg := p.Message
	headRaw := p.NewHEAD
	if !forward {
		msg = "autocoder: roll back " + p.Kind + " of " + p.StepID
		headRaw = p.OldHEAD
	}
	return e.Repo.BeginRefUpdate(gitops.RefUpdate{
		Name: p.Ref, Old: cur, New: want, Message: msg, Who: p.who,
		AlsoLogHEAD: strings.TrimSpace(headRaw) == "ref: "+p.Ref,
	}, e.own("ref"))
}

// lockHEAD takes HEAD.lock for a plan that changes HEAD, before the first
// write, with the new content already in it.
func (e *Engine) lockHEAD(p *plan, forward bool) (*gitops.HEADTxn, error) {
	if p.OldHEAD == p.NewHEAD {
		return nil, nil
	}
	want, from := p.NewHEAD, p.OldHEAD
	fromHash, toHash := p.HeadFrom, p.HeadTo
	msg := "checkout: moving from " + headName(from) + " to " + headName(want)
	if !forward {
		want, from = p.OldHEAD, p.NewHEAD
		fromHash, toHash = p.HeadTo, p.HeadFrom
		msg = "autocoder: roll back " + p.Kind + " of " + p.StepID + ": checkout: moving from " + headName(from) + " to " + headName(want)
	}
	cur, err := os.ReadFile(filepath.Join(e.Repo.GitDir, "HEAD"))
	if err != nil {
		return nil, err
	}
	if string(cur) == want {
		return nil, nil
	}
	return e.Repo.BeginSetHEAD(want, e.own("HEAD"), fromHash, toHash, p.who, msg)
}

func headName(raw string) string {
	s := strings.TrimSpace(raw)
	if t, ok := strings.CutPrefix(s, "ref: "); ok {
		return strings.TrimPrefix(t, "refs/heads/")
	}
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// tmpName is where a file's new content is written before the rename; a
// fixed name per path lets recovery remove what a killed run left.
func tmpName(full string) string {
	return filepath.Join(filepath.Dir(full), ".autocoder-tmp-"+filepath.Base(full))
}

// placeFile makes the worktree file rel hold t: its content and mode, or
// nothing. Content goes to a temporary file that is renamed over the path,
// so no reader ever sees half a file.
func (e *Engine) placeFile(p *plan, rel string, t entry, forward bool) error {
	full := e.Repo.Abs(rel)
	if !t.Exists {
		if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete %s: %w", rel, err)
		}
		if forward {
			// As git does; going back, only the plan's own NewDirs go.
			e.pruneDirs(path.Dir(rel))
		}
		return nil
	}
	var data []byte
	if forward && p.content != nil {
		if c, ok := p.content[rel]; ok {
			data = c
		}
	}
	if data == nil {
		var err error
		if data, err = e.Repo.ReadBlob(t.Hash); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o777); err != nil {
		return fmt.Errorf("create folder of %s: %w", rel, err)
	}
	if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
		// The plan turns an (empty by now) folder into a file.
		if err := os.Remove(full); err != nil {
			return fmt.Errorf("replace folder %s with a file: %w", rel, err)
		}
	}
	if t.Mode == gitops.ModeSymlink {
		os.Remove(full)
		if err := os.Symlink(string(data), full); err != nil {
			return fmt.Errorf("restore link %s: %w", rel, err)
		}
		return nil
	}
	perm := os.FileMode(0o666)
	if t.Mode == gitops.ModeExec {
		perm = 0o777
	}
	tmp := tmpName(full)
	os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", rel, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", rel, err)
	}
	if err := os.Rename(tmp, full); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", rel, err)
	}
	return nil
}

// isEither reports whether a path's worktree content is the plan's old or
// new state (or the file is absent where one of them has none): whether it
// is still ours to write.
func (e *Engine) isEither(c pathChange) bool {
	full := e.Repo.Abs(c.Path)
	fi, err := os.Lstat(full)
	if err != nil {
		return !c.Old.Exists || !c.New.Exists
	}
	var data []byte
	switch {
	case fi.Mode()&os.ModeSymlink != 0: // never follow it: the link itself is the content
		target, err := os.Readlink(full)
		if err != nil {
			return false
		}
		data = []byte(target)
	case fi.IsDir():
		return false
	default:
		if data, err = os.ReadFile(full); err != nil {
			return false
		}
	}
	h := gitops.BlobHash(data)
	return (c.Old.Exists && c.Old.Hash == h) || (c.New.Exists && c.New.Hash == h)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pruneDirs removes folders left empty by a deletion, up to the root, as
// git does.
func (e *Engine) pruneDirs(dir string) {
	for dir != "." && dir != "/" && dir != "" {
		if os.Remove(e.Repo.Abs(dir)) != nil {
			return
		}
		dir = path.Dir(dir)
	}
}

// recover finishes or undoes a transaction that a killed process left in
// the journal. The ref write is the commit point: if the ref already holds
// the new commit, the rest is completed; otherwise everything goes back.
func (e *Engine) recover() error {
	if err := e.recoverJournal(); err != nil {
		return err
	}
	if err := e.settleDebt(); err != nil {
		return err
	}
	return e.Flush()
}

func (e *Engine) recoverJournal() error {
	b, err := os.ReadFile(e.journalPath())
	if errors.Is(err, os.ErrNotExist) {
		return e.releaseStaleLocks(nil)
	}
	if err != nil {
		return fmt.Errorf("read journal: %w", err)
	}
	var p plan
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("read journal %s: %w; hint: it is damaged; move it away and check `git status`", e.journalPath(), err)
	}
	if err := e.releaseStaleLocks(&p); err != nil {
		return err
	}
	for _, c := range p.Paths {
		os.Remove(tmpName(e.Repo.Abs(c.Path)))
	}
	p.who = e.recoveryIdentity()
	cur, _, err := e.Repo.ResolveRef(p.Ref)
	if err != nil {
		return err
	}
	headNow, _ := os.ReadFile(filepath.Join(e.Repo.GitDir, "HEAD"))
	if (cur != p.OldRef && cur != p.NewRef) || (string(headNow) != p.OldHEAD && string(headNow) != p.NewHEAD) {
		// The user moved on (committed, switched branches) since the crash:
		// the journal describes a state that is gone. Touch nothing.
		kept := e.journalPath() + fmt.Sprintf(".abandoned-%d", e.opts.Now().Unix())
		if err := os.Rename(e.journalPath(), kept); err != nil {
			return err
		}
		var paths []string
		for _, c := range p.Paths {
			paths = append(paths, c.Path)
		}
		fmt.Fprintf(e.opts.Log, "autocoder: an earlier run was interrupted during step %s, but %s has moved since; left everything as it is (check %s) and kept the journal as %s\n",
			p.StepID, strings.TrimPrefix(p.Ref, "refs/heads/"), strings.Join(paths, ", "), kept)
		return nil
	}
	forward := cur == p.NewRef && p.NewRef != p.OldRef
	p.recovering = true
	if _, err := e.moveTo(&p, forward, nil); err != nil {
		return fmt.Errorf("recover the interrupted %s of step %s: %w; the journal %s is kept", p.Kind, p.StepID, err, e.journalPath())
	}
	if len(p.kept) > 0 {
		fmt.Fprintf(e.opts.Log, "autocoder: left your changes to %s as they are\n", strings.Join(p.kept, ", "))
	}
	if forward {
		fmt.Fprintf(e.opts.Log, "autocoder: an earlier run was interrupted after step %s was committed (%s); finished it\n", p.StepID, p.Kind)
	} else {
		fmt.Fprintf(e.opts.Log, "autocoder: an earlier run was interrupted during step %s (%s); restored the %d touched path(s), the index and %s to the state before it\n",
			p.StepID, p.Kind, len(p.Paths), strings.TrimPrefix(p.Ref, "refs/heads/"))
	}
	return e.clearJournal()
}

// releaseStaleLocks removes lock files that a killed autocoder took through
// its private names; any other lock stays.
func (e *Engine) releaseStaleLocks(p *plan) error {
	targets := map[string]string{
		"index":       filepath.Join(e.Repo.GitDir, "index"),
		"HEAD":        filepath.Join(e.Repo.GitDir, "HEAD"),
		"packed-refs": filepath.Join(e.Repo.CommonDir, "packed-refs"),
	}
	if p != nil {
		targets["ref"] = filepath.Join(e.Repo.CommonDir, filepath.FromSlash(p.Ref))
	}
	for name, t := range targets {
		removed, err := gitops.ReleaseStale(t, e.own(name))
		if err != nil {
			return err
		}
		if removed {
			fmt.Fprintf(e.opts.Log, "autocoder: removed %s.lock left by an interrupted autocoder run\n", t)
		}
	}
	// A stale own-ref file without a journal: the ref lock it names is
	// unknown; removing our private file is all that is safe.
	if p == nil {
		os.Remove(e.own("ref"))
	}
	return nil
}

func (e *Engine) recoveryIdentity() gitops.Signature {
	_, c, err := e.identity()
	if err != nil {
		return gitops.Signature{Name: "autocoder", Email: "autocoder@localhost", When: e.opts.Now()}
	}
	return c
}
