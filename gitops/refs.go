package gitops

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
)

// Head is what HEAD says: a branch (Branch set; Hash zero while the branch
// is unborn) or a detached commit.
type Head struct {
	Branch string // "refs/heads/…", empty when detached
	Hash   Hash   // the commit HEAD resolves to; zero if unborn
	Raw    string // the file's content, to restore it exactly
}

// Detached reports whether HEAD names a commit rather than a branch.
func (h Head) Detached() bool { return h.Branch == "" }

// RawHEAD is the content of this worktree's HEAD file as it is, to compare
// with what a journal recorded (Head.Raw).
func (r *Repo) RawHEAD() (string, error) {
	b, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	return string(b), nil
}

// ReadHEAD reads this worktree's HEAD.
func (r *Repo) ReadHEAD() (Head, error) {
	b, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return Head{}, fmt.Errorf("read HEAD: %w", err)
	}
	h := Head{Raw: string(b)}
	s := strings.TrimSpace(string(b))
	if t, ok := strings.CutPrefix(s, "ref:"); ok {
		h.Branch = strings.TrimSpace(t)
		h.Hash, _, err = r.ResolveRef(h.Branch)
		return h, err
	}
	if !plumbing.IsHash(s) {
		return Head{}, fmt.Errorf("read HEAD: malformed content %q", s)
	}
	h.Hash = plumbing.NewHash(s)
	return h, nil
}

// refFile is where a loose ref lives: per-worktree refs in GitDir, the rest
// in CommonDir.
func (r *Repo) refFile(name string) string {
	if name == "HEAD" || strings.HasPrefix(name, "refs/worktree/") || strings.HasPrefix(name, "refs/bisect/") {
		return filepath.Join(r.GitDir, filepath.FromSlash(name))
	}
	return filepath.Join(r.CommonDir, filepath.FromSlash(name))
}

func (r *Repo) logFile(name string) string {
	if name == "HEAD" {
		return filepath.Join(r.GitDir, "logs", "HEAD")
	}
	return filepath.Join(r.CommonDir, "logs", filepath.FromSlash(name))
}

// ResolveRef reads a ref (loose, else packed), following symbolic refs.
func (r *Repo) ResolveRef(name string) (Hash, bool, error) {
	for depth := 0; depth < 5; depth++ {
		b, err := os.ReadFile(r.refFile(name))
		if err == nil {
			s := strings.TrimSpace(string(b))
			if t, ok := strings.CutPrefix(s, "ref:"); ok {
				name = strings.TrimSpace(t)
				continue
			}
			if !plumbing.IsHash(s) {
				return ZeroHash, false, fmt.Errorf("read ref %s: malformed content %q", name, s)
			}
			return plumbing.NewHash(s), true, nil
		}
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return ZeroHash, false, fmt.Errorf("read ref %s: %w", name, err)
		}
		return r.packedRef(name)
	}
	return ZeroHash, false, fmt.Errorf("read ref %s: symbolic refs nest too deep", name)
}

func (r *Repo) packedRef(name string) (Hash, bool, error) {
	f, err := os.Open(filepath.Join(r.CommonDir, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return ZeroHash, false, nil
	}
	if err != nil {
		return ZeroHash, false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 42 || line[0] == '#' || line[0] == '^' {
			continue
		}
		if line[41:] == name {
			return plumbing.NewHash(line[:40]), true, nil
		}
	}
	return ZeroHash, false, sc.Err()
}

// RefChangedError is a ref that moved under us: someone else updated it
// between our read and our write.
type RefChangedError struct {
	Ref       string
	Want, Got Hash
}

func (e *RefChangedError) Error() string {
	return fmt.Sprintf("%s moved: expected %s, found %s", e.Ref, short(e.Want), short(e.Got))
}

// Hint says what to do.
func (e *RefChangedError) Hint() string {
	return "another program changed the branch while autocoder ran; look at `git log " + strings.TrimPrefix(e.Ref, "refs/heads/") + "` and run autocoder again"
}

func short(h Hash) string {
	if h.IsZero() {
		return "(none)"
	}
	return h.String()[:12]
}

// RefUpdate is one ref write: from Old (zero: must not exist) to New (zero:
// delete), with a reflog message.
type RefUpdate struct {
	Name     string
	Old, New Hash
	Message  string
	Who      Signature
	// AlsoLogHEAD appends the reflog line to HEAD's log too, as git does
	// when the ref is the branch HEAD points to.
	AlsoLogHEAD bool
}

// UpdateRef writes one ref under git's lock protocol: BeginRefUpdate, then
// Commit.
func (r *Repo) UpdateRef(u RefUpdate, p *Private) error {
	t, err := r.BeginRefUpdate(u, p)
	if err != nil {
		return err
	}
	return t.Commit()
}

// RefTxn is a ref update whose lock is held: the old value is verified and
// nobody else can move the ref until Commit or Rollback.
type RefTxn struct {
	r    *Repo
	u    RefUpdate
	lock *LockFile
	file string
	priv *Private
	made []string // the folders BeginRefUpdate made for the ref, deepest first
}

// BeginRefUpdate takes the ref's lock through its private name in p (see
// LockVia and ReleaseStaleLocks) and checks,
// under the lock, that the ref still has the value u.Old. Taking it before
// any other write lets a caller refuse cleanly when git holds the ref.
func (r *Repo) BeginRefUpdate(u RefUpdate, p *Private) (*RefTxn, error) {
	file := r.refFile(u.Name)
	if in, ok := r.RefInTheWay(u.Name); ok {
		return nil, &RefInTheWayError{Ref: u.Name, Other: in}
	}
	made, err := makeFolders(file)
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", u.Name, err)
	}
	t := &RefTxn{r: r, u: u, file: file, priv: p, made: made}
	lock, err := r.lockVia(p, u.Name)
	if err != nil {
		t.removeMade()
		return nil, err
	}
	t.lock = lock
	cur, _, err := r.ResolveRef(u.Name)
	if err != nil {
		t.Rollback()
		return nil, err
	}
	if cur != u.Old {
		t.Rollback()
		return nil, &RefChangedError{Ref: u.Name, Want: u.Old, Got: cur}
	}
	return t, nil
}

// Rollback releases the lock and leaves the ref as it was, and the folders
// of refs too.
func (t *RefTxn) Rollback() {
	t.lock.Rollback()
	t.removeMade()
}

// removeMade removes the folders BeginRefUpdate made, if still empty.
func (t *RefTxn) removeMade() { removeFolders(t.made) }

// makeFolders makes the folder of file and those above it that are
// missing, and returns the ones it made, deepest first (for
// removeFolders; also where it fails).
func makeFolders(file string) (made []string, err error) {
	for d := filepath.Dir(file); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		made = append(made, d)
	}
	return made, os.MkdirAll(filepath.Dir(file), 0o777)
}

// removeFolders removes folders, deepest first, while they are empty.
func removeFolders(folders []string) {
	for _, d := range folders {
		if os.Remove(d) != nil {
			return
		}
	}
}

// pruneEmpty removes dir and its parents while they are empty, up to (not
// including) stop and the folders git init makes (refs, refs/heads,
// refs/tags), as git does when it deletes a ref.
func pruneEmpty(dir, stop string) {
	for d := dir; d != stop && strings.HasPrefix(d, stop+string(filepath.Separator)); d = filepath.Dir(d) {
		rel, _ := filepath.Rel(stop, d)
		switch filepath.ToSlash(rel) {
		case "refs", "refs/heads", "refs/tags":
			return
		}
		if os.Remove(d) != nil {
			return
		}
	}
}

// RefInTheWay returns a ref that keeps name from being created: one whose
// name is a folder of name's ("refs/heads/autocoder" for
// "refs/heads/autocoder/main"), or one inside name taken as a folder. git
// refuses both, since a ref is a file and a folder of refs a folder.
func (r *Repo) RefInTheWay(name string) (string, bool) {
	if _, exists, err := r.ResolveRef(name); err == nil && exists {
		return "", false
	}
	parts := strings.Split(name, "/")
	for i := 2; i < len(parts); i++ {
		prefix := strings.Join(parts[:i], "/")
		if _, exists, err := r.ResolveRef(prefix); err == nil && exists {
			return prefix, true
		}
	}
	if fi, err := os.Stat(r.refFile(name)); err == nil && fi.IsDir() {
		var inside string
		filepath.WalkDir(r.refFile(name), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".lock") && inside == "" {
				rel, _ := filepath.Rel(r.CommonDir, p)
				inside = filepath.ToSlash(rel)
			}
			return nil
		})
		if inside != "" {
			return inside, true
		}
	}
	if b, err := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if _, ref, ok := strings.Cut(line, " "); ok && strings.HasPrefix(ref, name+"/") {
				return ref, true
			}
		}
	}
	return "", false
}

// RefInTheWayError is a ref that cannot be created because another is in
// the way (RefInTheWay).
type RefInTheWayError struct {
	Ref   string // the ref to create: "refs/heads/autocoder/main"
	Other string // the ref in the way: "refs/heads/autocoder"
}

func (e *RefInTheWayError) Error() string {
	return fmt.Sprintf("cannot create %s: %s exists, and a ref cannot also be a folder of refs", e.Ref, e.Other)
}

// Hint names the way out.
func (e *RefInTheWayError) Hint() string {
	short := strings.TrimPrefix(e.Other, "refs/heads/")
	return fmt.Sprintf("rename the branch in the way (git branch -m %s %s-old), or name the new one otherwise", short, short)
}

// Commit writes the new value (or deletes the ref and its reflog, as git
// does, when New is zero) and appends the reflog line.
func (t *RefTxn) Commit() error {
	r, u := t.r, t.u
	if u.New.IsZero() {
		err := func() error {
			defer t.lock.Rollback()
			if err := r.deletePacked(u.Name, t.priv); err != nil {
				return err
			}
			if err := os.Remove(t.file); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("delete %s: %w", u.Name, err)
			}
			os.Remove(r.logFile(u.Name))
			return nil
		}()
		if err == nil { // the lock released: its folders may be empty now
			pruneEmpty(filepath.Dir(t.file), filepath.Dir(r.refFile("refs")))
			pruneEmpty(filepath.Dir(r.logFile(u.Name)), filepath.Join(r.CommonDir, "logs"))
		}
		return err
	}
	if _, err := t.lock.Write([]byte(u.New.String() + "\n")); err != nil {
		t.Rollback()
		return fmt.Errorf("update %s: %w", u.Name, err)
	}
	// The reflog lines before the move, as git writes them
	// (files_transaction_finish): one that cannot be written (a full
	// disk) fails the update before the ref moved, so that the step can
	// still be taken back; the lines are taken back with it.
	line := reflogLine(u.Old, u.New, u.Who, u.Message)
	names := []string{u.Name}
	if u.AlsoLogHEAD {
		names = append(names, "HEAD")
	}
	if err := r.appendLogs(names, line, t.lock.Commit); err != nil {
		// The ref stays as it was, and the folders made for a new one
		// go (the lock's release is a no-op after a failed rename).
		t.Rollback()
		return err
	}
	// The ref names the new objects now: a git gc that looked before may
	// have removed them (gc.go).
	return r.keepObjects()
}

// deletePacked removes a ref from packed-refs, if it is there, under
// packed-refs.lock (taken through its private name in p, see LockVia).
func (r *Repo) deletePacked(name string, p *Private) error {
	b, err := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !bytes.Contains(b, []byte(" "+name+"\n")) {
		return nil
	}
	lock, err := r.lockVia(p, "packed-refs")
	if err != nil {
		return err
	}
	defer lock.Rollback()
	var out bytes.Buffer
	lines := strings.SplitAfter(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		if len(lines[i]) > 41 && strings.TrimRight(lines[i][41:], "\n") == name && lines[i][0] != '#' {
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "^") {
				i++
			}
			continue
		}
		out.WriteString(lines[i])
	}
	if _, err := lock.Write(out.Bytes()); err != nil {
		return err
	}
	return lock.Commit()
}

func reflogLine(old, new Hash, who Signature, msg string) string {
	msg = strings.ReplaceAll(strings.TrimSpace(msg), "\n", " ")
	return fmt.Sprintf("%s %s %s\t%s\n", old, new, who, msg)
}

// autocreateReflog reports whether git makes a reflog for ref name where
// it has none (should_autocreate_reflog): core.logAllRefUpdates "always",
// every ref; false, none; true or unset (a repository with a worktree),
// branches, remote-tracking refs, notes and HEAD. A value git does not
// read as a boolean is taken as unset.
func (r *Repo) autocreateReflog(name string) bool {
	v := r.configValue("core.logAllRefUpdates")
	if strings.EqualFold(v, "always") {
		return true
	}
	if on, ok := r.ConfigBool("core", "logAllRefUpdates"); ok && !on {
		return false
	}
	return name == "HEAD" || strings.HasPrefix(name, "refs/heads/") || strings.HasPrefix(name, "refs/remotes/") || strings.HasPrefix(name, "refs/notes/")
}

// appendLog appends line to the reflog of name and returns what takes it
// back: the file cut to its old size, or, where the line made the file
// (a ref's first), the file and the folders made for it removed, so that
// a ref not created has no reflog (git reflog exists) and no file stands
// where a folder of other refs' reflogs would go.
// A ref git would make no reflog for (autocreateReflog) gets none: the
// line is dropped where its file does not exist, or a folder stands there.
func (r *Repo) appendLog(name, line string) (undo func(), err error) {
	p := r.logFile(name)
	var made []string // the folders made for the file, deepest first
	created := false
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil && !r.autocreateReflog(name) && (errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.EISDIR) || isDir(p)) {
		// git opens it only to append, and takes a folder at the name
		// (reflogs of refs inside it) as no file: no line, the folder
		// left as it is (log_ref_setup).
		return func() {}, nil
	}
	if err != nil && removeEmptyFolder(p) {
		// An empty folder at the name (left by the reflogs of refs
		// inside it, removed without their folders): git removes it too
		// (log_ref_setup). One that holds reflogs stays and refuses.
		err = os.ErrNotExist
	}
	if errors.Is(err, os.ErrNotExist) {
		if made, err = makeFolders(p); err == nil {
			f, err = os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o666)
			created = err == nil
			if errors.Is(err, os.ErrExist) {
				// Made meanwhile by another writer (HEAD's reflog,
				// whose lock we do not hold): appended to, not ours
				// to remove.
				f, err = os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			}
		}
	}
	if err != nil {
		removeFolders(made)
		return nil, fmt.Errorf("append reflog of %s: %w", name, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		if created {
			os.Remove(p)
			removeFolders(made)
		}
		return nil, fmt.Errorf("append reflog of %s: %w", name, err)
	}
	size := fi.Size()
	n, err := f.WriteString(line)
	f.Close() // before the undo: Windows removes no file held open
	// Only a file that still ends with what was written here is cut:
	// HEAD's reflog gets the line of a move of the branch HEAD is on
	// without HEAD.lock (git takes it; we do not), and a line another
	// writer appended after ours (a git checkout beside us) must stay.
	// Ours then stays too, as git leaves one after a kill between line
	// and rename.
	end := size + int64(n)
	undo = func() {
		if fi, err := os.Stat(p); err != nil || fi.Size() != end {
			return
		}
		if created {
			os.Remove(p)
			removeFolders(made)
			return
		}
		os.Truncate(p, size)
	}
	if err != nil {
		undo() // a line cut short by a full disk is no line
		return nil, fmt.Errorf("append reflog of %s: %w", name, err)
	}
	return undo, nil
}

// removeEmptyFolder removes dir and the folders inside it when dir is a
// folder that holds no file, and reports whether it did.
func removeEmptyFolder(dir string) bool {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return false
	}
	var dirs []string
	held := false
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			held = true
			return filepath.SkipAll
		}
		dirs = append(dirs, p)
		return nil
	})
	if err != nil || held {
		return false
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if os.Remove(dirs[i]) != nil {
			return false
		}
	}
	return true
}

// appendLogs appends line to the reflogs of names, then runs move (the
// rename that moves the ref or HEAD). Where a line or the move fails, the
// lines appended are taken back and the error returned.
func (r *Repo) appendLogs(names []string, line string, move func() error) error {
	var undos []func()
	takeBack := func() {
		for _, undo := range undos {
			undo()
		}
	}
	for _, name := range names {
		undo, err := r.appendLog(name, line)
		if err != nil {
			takeBack()
			return err
		}
		undos = append(undos, undo)
	}
	if err := move(); err != nil {
		takeBack()
		return err
	}
	return nil
}

// HEADTxn is a HEAD change whose lock is held with the new content written:
// Commit renames it into place and appends the reflog line.
type HEADTxn struct {
	r        *Repo
	lock     *LockFile
	from, to Hash
	who      Signature
	msg      string
}

// BeginSetHEAD takes HEAD.lock through its private name in p (see
// LockVia) and writes raw ("ref: refs/heads/x\n" or a commit name) into it.
func (r *Repo) BeginSetHEAD(raw string, p *Private, from, to Hash, who Signature, msg string) (*HEADTxn, error) {
	lock, err := r.lockVia(p, "HEAD")
	if err != nil {
		return nil, err
	}
	if _, err := lock.Write([]byte(raw)); err != nil {
		lock.Rollback()
		return nil, err
	}
	return &HEADTxn{r: r, lock: lock, from: from, to: to, who: who, msg: msg}, nil
}

// Rollback releases HEAD.lock; HEAD stays as it was.
func (t *HEADTxn) Rollback() { t.lock.Rollback() }

// Commit logs the new HEAD (when it names a commit) and moves it into
// place, in git's order (see RefTxn.Commit).
func (t *HEADTxn) Commit() error {
	if t.msg == "" || t.to.IsZero() {
		return t.lock.Commit()
	}
	err := t.r.appendLogs([]string{"HEAD"}, reflogLine(t.from, t.to, t.who, t.msg), t.lock.Commit)
	if err != nil {
		t.lock.Rollback() // HEAD stays as it was (a no-op after a failed rename)
	}
	return err
}

// BranchExists reports whether refs/heads/<name> exists.
func (r *Repo) BranchExists(name string) bool {
	_, ok, _ := r.ResolveRef("refs/heads/" + name)
	return ok
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
