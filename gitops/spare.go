package gitops

// Spare files: empty files made ahead of time, between a session's calls,
// in autocoder's private folder, and renamed into place when a call needs a
// new file under .git (a loose object's temporary file, a lock's private
// name). Making a file (a new inode) is most of what writing a small one
// costs on some file systems: 0.5-0.9 ms on the ext4 the benchmarks ran
// on, against 20-40 µs to rename one and write into it; a one-file call
// makes seven of them. The spares move that cost from the call to the time
// between calls, when the session waits for its client. What is written,
// and in which order, is the same: a spare is renamed to the name the file
// would have been created under, then written, then renamed into place as
// before; a kill at any moment leaves at worst an empty file in the spare
// folder, which the next session takes up. The same holds for freeing a
// file (Keep): a file replaced by a rename keeps a second name in the
// spare folder until the call is over.
//
// A loose object is left read-only (0444, less the umask, as git creates
// it), and chmod after the rename into place was one more call per object.
// Where a file held open can be renamed (unix), its spares are made with
// that mode and kept open until taken: a read-only file cannot be opened
// for writing later (but by root), and the descriptor spares the opening
// too. Such a spare is written where it is, in the spare folder, and
// renamed once, to the object's name: a temporary name in the fan-out
// folder would be one more rename (40 µs on the benchmark machine). The
// object appears whole under its name, as git's own write makes it; a
// kill before the rename leaves the bytes in the spare folder. A killed
// session's object spares (empty or written) are of no use without it,
// and are removed unread.
//
// Work tree files are never made from spares: a file made in its own folder
// takes that folder's group and default ACL, which one made elsewhere would
// not.
//
// Spare folders do for the object folders what spare files do for files: a
// repository that git has packed (a clone, a gc) has none of the 256
// fan-out folders (objects/ab/), and a call writing six objects made up to
// six of them, 0.2-1.2 ms each on the benchmark machine's ext4 (a new
// inode and a block), against 0.1 ms to rename a folder made in advance.
// Fill makes them only while the object folder lacks fan-out folders, and
// never more than it lacks; a folder is renamed into place only where one
// is missing, so the object folder holds the same folders, with the same
// objects, as without spares.

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Spares is the pool of spare files of one session. Sessions of several
// processes may share the folder: a spare is claimed by renaming it, which
// one process wins.
type Spares struct {
	dir   string
	token string
	seq   int

	mu    sync.Mutex
	names []string    // spares in the folder, as last seen; claimed from the end
	gone  []string    // files kept by Keep, for Fill to remove
	dirs  []string    // spare folders (see takeDir); claimed from the end
	objs  []heldSpare // read-only spares held open (see takeObject); claimed from the end
	off   bool        // the folder is on another file system than .git's files
	// objects is the object folder whose missing fan-out folders spare
	// folders stand in for (set by UseSpares); "" makes none.
	objects string
	// lacking is the fan-out folders ("ab") objects lacked when Fill
	// last looked (see lacks).
	lacking map[string]bool

	stop chan struct{} // closed by Stop
	done chan struct{} // closed when the running Fill ends; nil when none runs
}

// Spares returns the pool of spare files in the private folder, and lets
// the Repo use it (see UseSpares). It takes up the spares a killed session
// left.
func (p *Private) Spares() *Spares {
	s := &Spares{dir: filepath.Join(p.dir, "spare"), token: newSpareToken()}
	if fi, err := os.Lstat(s.dir); err == nil && !fi.IsDir() {
		// A symlink (to a folder of the user's, whose files would be
		// taken and removed as spares) or a file: not a folder autocoder
		// made, so it is neither read nor written; files are made anew.
		s.off = true
		return s
	}
	if ents, err := os.ReadDir(s.dir); err == nil {
		for _, e := range ents {
			switch name := filepath.Join(s.dir, e.Name()); {
			case !spareName().MatchString(e.Name()):
			case e.IsDir() && strings.Contains(e.Name(), dirMark) && emptyDir(name):
				s.dirs = append(s.dirs, name)
			case !e.Type().IsRegular():
			case strings.Contains(e.Name(), goneMark) || strings.Contains(e.Name(), objMark):
				s.gone = append(s.gone, name) // an object's spare is of no use unopened
			case !strings.Contains(e.Name(), dirMark):
				s.names = append(s.names, name)
			}
		}
	}
	return s
}

// emptyDir reports whether the folder name holds nothing: a spare folder
// left by a killed session is taken up only then, as what is in a folder
// renamed into the object folder would stand among the objects.
func emptyDir(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	return errors.Is(err, io.EOF)
}

// UseSpares makes the Repo take the files it writes under .git, and the
// fan-out folders of the objects it writes, from s while s has any (nil:
// make each anew).
func (r *Repo) UseSpares(s *Spares) {
	r.spares = s
	if s != nil {
		s.mu.Lock()
		s.objects = filepath.Join(r.CommonDir, "objects")
		s.mu.Unlock()
	}
}

func newSpareToken() string {
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("%d-%x", os.Getpid(), b)
}

// goneMark is in the names of the files Keep keeps, dirMark in those of
// the spare folders, objMark in those of the read-only spares.
const (
	goneMark = "-gone-"
	dirMark  = "-dir-"
	objMark  = "-obj-"
)

// spareName spells the names Fill and Keep give (token, a mark or "-",
// seq): a file in the folder named otherwise is not one autocoder made,
// and is left alone.
var spareName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9]+-[0-9a-f]{8}(` + goneMark + `|` + dirMark + `|` + objMark + `|-)[0-9]+$`)
})

// heldSpare is a read-only spare and the descriptor it was made with.
type heldSpare struct {
	name string
	f    *os.File
}

// Keep gives path's file a second name in the spare folder, so that
// renaming another file over path (or removing it) does not free the file
// during the call: freeing a file's inode and blocks costs as much as
// making one there (0.5-1.6 ms on the benchmark machine's ext4). Fill
// removes it between calls. Without a pool, or where the link cannot be
// made, the file is freed at once, as before.
func (s *Spares) Keep(path string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.off || len(s.gone) >= maxGone {
		return
	}
	s.seq++
	name := filepath.Join(s.dir, fmt.Sprintf("%s%s%d", s.token, goneMark, s.seq))
	if os.Link(path, name) == nil {
		s.gone = append(s.gone, name)
	}
}

// maxGone bounds the files Keep keeps while calls come back to back, with
// no time for Fill between them: past it, a replaced file is freed at once.
const maxGone = 64

// spareReserve is how many bytes of each spare file Fill reserves (see
// Reserve): a file system block, which the file takes however little it
// holds, so nothing is reserved that it would not use.
const spareReserve = 4096

// fillDelay is how long Fill waits before it starts: a client that sends
// its next call at once (a script, not a model) finds nothing running
// that its call would wait for or compete with on the disk.
var fillDelay = 5 * time.Millisecond // a variable for the tests (SetFillDelay)

// spareDirs is the most spare folders a pool keeps: the objects of a
// one-file step at depth 6.
const spareDirs = 8

// Fill removes the files Keep kept and makes spares, in the background,
// from fillDelay on, until the pool holds n files and the spare folders
// the object folder may need (see lackingDirs), or until Stop. It returns
// at once.
func (s *Spares) Fill(n int) {
	s.Stop()
	stop, done := make(chan struct{}), make(chan struct{})
	s.stop, s.done = stop, done
	stopped := func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}
	go func() {
		defer close(done)
		select {
		case <-stop:
			return
		case <-time.After(fillDelay):
		}
		if err := os.MkdirAll(s.dir, 0o777); err != nil {
			return
		}
		if fi, err := os.Lstat(s.dir); err != nil || !fi.IsDir() {
			s.mu.Lock()
			s.off = true // a symlink made meanwhile: see Spares
			s.mu.Unlock()
			return
		}
		for !stopped() {
			s.mu.Lock()
			if len(s.gone) > 0 {
				name := s.gone[len(s.gone)-1]
				s.gone = s.gone[:len(s.gone)-1]
				s.mu.Unlock()
				os.Remove(name)
				continue
			}
			enough := len(s.names) >= n || s.off
			s.seq++
			name := filepath.Join(s.dir, fmt.Sprintf("%s-%d", s.token, s.seq))
			s.mu.Unlock()
			if enough {
				break
			}
			f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
			if err != nil {
				return
			}
			// A lock's file, renamed over its target: a small index or
			// a ref is written into blocks it has (see Reserve).
			Reserve(f, 0, spareReserve)
			f.Close()
			s.mu.Lock()
			s.names = append(s.names, name)
			s.mu.Unlock()
		}
		for holdSpares && !stopped() {
			s.mu.Lock()
			enough := len(s.objs) >= n || s.off
			s.seq++
			name := filepath.Join(s.dir, fmt.Sprintf("%s%s%d", s.token, objMark, s.seq))
			s.mu.Unlock()
			if enough {
				break
			}
			f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o444)
			if err != nil {
				return
			}
			s.mu.Lock()
			s.objs = append(s.objs, heldSpare{name, f})
			s.mu.Unlock()
		}
		s.mu.Lock()
		objects := s.objects
		s.mu.Unlock()
		if objects == "" || stopped() {
			return
		}
		lacking := lackingDirs(objects)
		s.mu.Lock()
		s.lacking = lacking
		s.mu.Unlock()
		want := min(spareDirs, len(lacking))
		for !stopped() {
			s.mu.Lock()
			enough := len(s.dirs) >= want || s.off
			s.seq++
			name := filepath.Join(s.dir, fmt.Sprintf("%s%s%d", s.token, dirMark, s.seq))
			s.mu.Unlock()
			if enough || os.Mkdir(name, 0o777) != nil {
				return
			}
			s.mu.Lock()
			s.dirs = append(s.dirs, name)
			s.mu.Unlock()
		}
	}()
}

// lackingDirs lists the fan-out folders ("ab") that objects lacks (none
// when it cannot be read).
func lackingDirs(objects string) map[string]bool {
	f, err := os.Open(objects)
	if err != nil {
		return nil
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil
	}
	lacking := make(map[string]bool, 256)
	for i := range 256 {
		lacking[fmt.Sprintf("%02x", i)] = true
	}
	for _, name := range names {
		delete(lacking, name)
	}
	return lacking
}

// lacks reports, once, whether the object folder lacked the fan-out
// folder fan when Fill last looked: its first object then has a spare
// folder renamed into place at once, rather than after a rename of a
// spare file there, and a create, have failed for want of it (four calls
// into the file system for nothing, in each new folder of a repository
// git has packed). A folder made or removed since is found as it is: the
// caller's fallbacks stay.
func (s *Spares) lacks(fan string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.lacking[fan] {
		return false
	}
	delete(s.lacking, fan)
	return true
}

// Stop ends a running Fill and waits for it (at most the making of one
// file): a call does not compete with it.
func (s *Spares) Stop() {
	if s == nil || s.done == nil {
		return
	}
	close(s.stop)
	<-s.done
	s.done = nil
}

// Remove stops Fill and removes the spares the pool holds.
func (s *Spares) Remove() {
	if s == nil {
		return
	}
	s.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.objs {
		o.f.Close()
		s.names = append(s.names, o.name)
	}
	for _, n := range slices.Concat(s.names, s.gone, s.dirs) {
		os.Remove(n) // a folder only if empty
	}
	s.names, s.gone, s.dirs, s.objs = nil, nil, nil, nil
	if fi, err := os.Lstat(s.dir); err == nil && fi.IsDir() {
		os.Remove(s.dir) // only if empty: another session's spares stay
	}
}

// take renames a spare to dst and reports whether it did: false when the
// pool is empty or the rename failed (dst's folder missing, another file
// system); the caller then makes dst itself. A rename claims a spare for
// one process only. dst must not exist, as the rename would replace it: a
// lock's private name the caller found absent (a stale lock's stays the
// same file as the lock, so that ReleaseStale can prove it ours), which
// only the process holding the autocoder lock uses, or a random name (an
// object's temporary file).
func (s *Spares) take(dst string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.names) == 0 || s.off {
		return false
	}
	for len(s.names) > 0 {
		src := s.names[len(s.names)-1]
		err := Rename(src, dst)
		if err == nil {
			s.names = s.names[:len(s.names)-1]
			if !soleName(dst) {
				// Not a file Fill made: one with another name too (a hard
				// link to a file of the user's, in a repository received
				// as an archive) would be truncated and written through
				// it. Only the spare's name goes.
				os.Remove(dst)
				continue
			}
			return true
		}
		if errors.Is(err, syscall.EXDEV) {
			s.off = true
			return false
		}
		if _, serr := os.Lstat(src); serr == nil {
			return false // the spare is there: dst cannot be made
		}
		s.names = s.names[:len(s.names)-1] // another session took it
	}
	return false
}

// openEmpty opens the existing file name with flag, empty as O_TRUNC would
// leave it (see emptied).
func openEmpty(name string, flag int) (*os.File, error) {
	f, err := os.OpenFile(name, flag, 0)
	if err != nil {
		return nil, err
	}
	if _, err := emptied(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// emptied makes f empty, truncating it only when it is not: a spare is,
// as a file made by Fill and never written before it is taken. O_TRUNC or
// a truncation, even of an empty file, is what ext4 takes for the
// "truncate and rewrite" pattern (auto_da_alloc): the close then allocates
// the file's blocks and starts writing them back, 80 µs of each file a
// call writes under .git on the benchmark machine (a third of writing an
// object into a spare); a look at the size (fstat) costs a microsecond.
// reserved is how many bytes of the empty file have their blocks (see
// Reserve): those of a spare Fill made.
func emptied(f *os.File) (reserved int64, err error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if fi.Size() == 0 {
		return allocated(fi), nil
	}
	return 0, f.Truncate(0)
}

// soleName reports whether name is a regular file and its one name: one
// with a second name (a hard link to a file of the user's, which an
// archive of the repository, .git included, keeps) would have the user's
// file written through it.
func soleName(name string) bool {
	fi, err := os.Lstat(name)
	return err == nil && fi.Mode().IsRegular() && oneLink(name, fi)
}

// takeObject hands over a read-only spare held open, still under its name
// in the spare folder (see Repo.writeLoose); false when the pool holds
// none.
func (s *Spares) takeObject() (heldSpare, bool) {
	if s == nil {
		return heldSpare{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.objs) == 0 || s.off {
		return heldSpare{}, false
	}
	o := s.objs[len(s.objs)-1]
	s.objs = s.objs[:len(s.objs)-1]
	return o, true
}

// placeObject writes a loose object's bytes into o, a spare takeObject
// handed over, and renames it to final, the object's file in the fan-out
// folder dir (made from a spare folder, or anew, when missing). It
// reports false, with o removed, when the spare can serve no more: another
// session starting beside this one removed it (it takes every object
// spare it finds for a killed session's), or the spare folder is on
// another file system; the caller then writes the object as without
// spares. A kill before the rename leaves the bytes in the spare folder,
// under a name the next session removes unread.
func (s *Spares) placeObject(o heldSpare, data []byte, dir, final string) (bool, error) {
	_, err := o.f.Write(data)
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = Rename(o.name, final)
		if errors.Is(err, os.ErrNotExist) {
			if _, serr := os.Lstat(o.name); serr != nil {
				return false, nil // removed beside us: nothing of it is left
			}
			// No fan-out folder yet.
			err = nil
			if !s.takeDir(dir) {
				err = os.MkdirAll(dir, 0o777)
			}
			if err == nil {
				err = Rename(o.name, final)
			}
		}
	}
	if err == nil {
		return true, nil
	}
	os.Remove(o.name)
	if errors.Is(err, syscall.EXDEV) {
		s.mu.Lock()
		s.off = true
		s.mu.Unlock()
		return false, nil
	}
	return true, err
}

// takeDir renames a spare folder to dst, a missing fan-out folder of the
// object folder, and reports whether it did: false when the pool has
// none, or dst exists meanwhile (os.Rename refuses to replace a folder) or
// cannot be made there; the caller then makes dst itself.
func (s *Spares) takeDir(dst string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.dirs) > 0 && !s.off {
		src := s.dirs[len(s.dirs)-1]
		err := os.Rename(src, dst)
		if err == nil {
			s.dirs = s.dirs[:len(s.dirs)-1]
			return true
		}
		if errors.Is(err, syscall.EXDEV) {
			s.off = true
			return false
		}
		if _, serr := os.Lstat(src); serr == nil {
			return false
		}
		s.dirs = s.dirs[:len(s.dirs)-1] // another session took it
	}
	return false
}

// tmpObjectName is a loose object's temporary file in its folder dir, as
// git names it (git gc removes one that a killed process left).
func tmpObjectName(dir string) string {
	var b [8]byte
	rand.Read(b[:])
	return filepath.Join(dir, fmt.Sprintf("tmp_obj_%x", b))
}
