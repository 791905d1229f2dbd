package gitops

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Hash is a sha1 object name.
type Hash = plumbing.Hash

// ZeroHash is the all-zero name git uses for "no object" in reflogs.
var ZeroHash Hash

// Git file modes as stored in trees and the index.
const (
	ModeFile    uint32 = 0o100644
	ModeExec    uint32 = 0o100755
	ModeSymlink uint32 = 0o120000
	ModeGitlink uint32 = 0o160000
	ModeTree    uint32 = 0o040000
)

// WriteObject stores a loose object and returns its name, as git writes
// one (object-file.c): zlib at core.looseCompression's default (best
// speed) into a temporary file in the object's fan-out folder, renamed to
// its name. Trees, and objects of one file-system block or less, are
// stored in zlib's uncompressed blocks (git's core.looseCompression=0;
// see storedZlib): trees are mostly SHA-1s, which do not compress (a
// 1,000-entry tree of 31 KB shrinks by a fifth), and compressing one cost
// 0.4 ms at every step changing a file in a large folder; a small object
// takes a block either way. git gc compresses them when it packs them. Not through go-git's writer, which puts the temporary file in
// objects/pack: that changes the folder Refresh watches for new packs, and
// a session then reopened the object store (and its pack indexes) at every
// call.
func (r *Repo) WriteObject(typ plumbing.ObjectType, data []byte) (Hash, error) {
	h := plumbing.ComputeHash(typ, data)
	// Kept until a ref names it, in case a git gc removes it (gc.go).
	r.remember(h, typ, data)
	// A loose object is not looked for: a step's objects are new but for
	// rare ones (a file or folder as it was before), and looking costs a
	// lookup that misses in the fan-out folder for each of them. One that
	// is there is written again over itself, which leaves what git's
	// freshen leaves: the same bytes, a new time.
	if r.hasUnlessLoose(h) {
		r.freshen(h) // a loose file go-git found, if any
		return h, nil
	}
	if b := r.behind; b != nil {
		b.queue <- pendingObject{h, typ, data}
		return h, nil
	}
	if err := r.writeLoose(h, typ, data); err != nil {
		return ZeroHash, fmt.Errorf("write %s object: %w", typ, err)
	}
	return h, nil
}

// behindWriter is the goroutine that writes a step's objects, in order,
// while the step goes on (see WriteBehind).
type behindWriter struct {
	queue chan pendingObject
	done  chan struct{}
	err   error // the first failure, read once done is closed
}

// WriteBehind makes WriteObject return as soon as it has named an object:
// one goroutine writes the objects, in the order named, while the caller
// goes on to what does not need them on disk (a step's journal, its work
// tree files and its index: a 100k-file step's object files took 0.5 ms
// of its 2.2, and the rest of its writes another 0.7, on the benchmark
// machine). ObjectsWritten waits for them, and the caller calls it before
// anything names one of them (a ref's move); nothing may read them
// before (a tree written is in the tree cache, whence EditTree and Lookup
// read it). The Repo is the caller's alone until then: another
// goroutine's write would be made behind too.
func (r *Repo) WriteBehind() {
	r.ObjectsWritten()
	b := &behindWriter{queue: make(chan pendingObject, 16), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		for o := range b.queue {
			if b.err != nil {
				continue
			}
			if err := r.writeLoose(o.h, o.typ, o.data); err != nil {
				b.err = fmt.Errorf("write %s object: %w", o.typ, err)
			}
		}
	}()
	r.behind = b
}

// ObjectsWritten ends WriteBehind: it waits until the objects named since
// are written, and returns the first failure. Without WriteBehind it
// returns nil at once.
func (r *Repo) ObjectsWritten() error {
	b := r.behind
	if b == nil {
		return nil
	}
	r.behind = nil
	close(b.queue)
	<-b.done
	return b.err
}

// freshen sets the mtime of h's loose file, if it has one, to now, as
// git's write_object_file does for an object it would write and finds
// there: git gc prunes unreachable loose objects by age, and one written
// long ago (a step undone, then made again) must not be pruned under the
// commit that is about to name it. A packed object is left as it is.
func (r *Repo) freshen(h Hash) {
	now := time.Now()
	os.Chtimes(r.looseFile(h), now, now)
}

// tmpObject is a new temporary file in an object folder, open for
// writing, and its name there.
type tmpObject struct {
	f    *os.File
	name string
}

// tmpObjectFile opens a new temporary file in the object folder dir: a
// spare (see Spares) when there is one, else one made there.
func (r *Repo) tmpObjectFile(dir string) (tmpObject, error) {
	tmp := tmpObjectName(dir)
	if r.spares.take(tmp) {
		f, err := openEmpty(tmp, os.O_WRONLY)
		if !errors.Is(err, os.ErrNotExist) {
			return tmpObject{f, tmp}, err
		}
		// A git gc --prune=now beside us removed the spare (git prunes
		// tmp_obj_ files): make a file as if there had been none.
	}
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return tmpObject{}, err
	}
	return tmpObject{f, f.Name()}, nil
}

var zlibWriters = sync.Pool{New: func() any { w, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed); return w }}

// storedUpTo is the size (header and content) up to which an object that
// is not a tree is stored uncompressed: a file system's block, which the
// loose file takes however small.
const storedUpTo = 4096

// storedZlib is the zlib stream (RFC 1950) of head followed by data, in
// deflate's stored blocks (RFC 1951, 3.2.4), as zlib writes at level 0.
// Written here, not by compress/zlib: its writer holds a megabyte of
// state, whose allocation (a session's collector empties the pool between
// calls) or reset cost more than a small object's whole write.
func storedZlib(head, data []byte) []byte {
	raw := append(head[:len(head):len(head)], data...)
	const most = 65535 // a stored block's largest length
	out := make([]byte, 0, 2+len(raw)+5*(len(raw)/most+1)+4)
	out = append(out, 0x78, 0x01) // deflate, 32 KB window, fastest; a multiple of 31
	for rest := raw; ; {
		n := min(len(rest), most)
		final := byte(0)
		if n == len(rest) {
			final = 1 // BFINAL; BTYPE 00 (stored)
		}
		out = append(out, final, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		out = append(out, rest[:n]...)
		rest = rest[n:]
		if final == 1 {
			break
		}
	}
	return binary.BigEndian.AppendUint32(out, adler32.Checksum(raw))
}

func (r *Repo) writeLoose(h Hash, typ plumbing.ObjectType, data []byte) error {
	head := fmt.Appendf(nil, "%s %d\x00", typ, len(data))
	var stream []byte
	if typ == plumbing.TreeObject || len(head)+len(data) <= storedUpTo {
		stream = storedZlib(head, data)
	} else {
		var buf bytes.Buffer
		zw := zlibWriters.Get().(*zlib.Writer)
		defer zlibWriters.Put(zw)
		zw.Reset(&buf)
		zw.Write(head)
		zw.Write(data)
		if err := zw.Close(); err != nil {
			return err
		}
		stream = buf.Bytes()
	}
	final := r.looseFile(h)
	dir := filepath.Dir(final)
	if r.spares.lacks(filepath.Base(dir)) {
		r.spares.takeDir(dir) // if it fails, placeObject or tmpObjectFile finds out
	}
	if o, ok := r.spares.takeObject(); ok {
		// Written in the spare folder and renamed into place: one rename,
		// where a temporary file in dir takes two.
		if done, err := r.spares.placeObject(o, stream, dir, final); done {
			return err
		}
	}
	t, err := r.tmpObjectFile(dir)
	if errors.Is(err, os.ErrNotExist) {
		// No fan-out folder yet: a spare folder becomes it, or one is made.
		err = nil
		if !r.spares.takeDir(dir) {
			err = os.MkdirAll(dir, 0o777)
		}
		if err == nil {
			t, err = r.tmpObjectFile(dir)
		}
	}
	if err != nil {
		return err
	}
	_, err = t.f.Write(stream)
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = Rename(t.name, final)
	}
	if err != nil {
		os.Remove(t.name)
		if r.looseExists(h) {
			return nil // written meanwhile by someone else: the same bytes
		}
		return err
	}
	os.Chmod(final, 0o444) // as git leaves objects: read-only
	return nil
}

// BlobHash is the name that content would have as a blob, without storing it.
func BlobHash(content []byte) Hash { return plumbing.ComputeHash(plumbing.BlobObject, content) }

// WriteBlob stores content as a blob.
func (r *Repo) WriteBlob(content []byte) (Hash, error) {
	return r.WriteObject(plumbing.BlobObject, content)
}

// ReadObject reads an object of the given type.
func (r *Repo) ReadObject(typ plumbing.ObjectType, h Hash) ([]byte, error) {
	if data, ok := r.readDirect(typ, h); ok {
		return data, nil
	}
	o, err := r.encodedObject(typ, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		// A git gc beside us may have packed the object and removed the
		// loose file: go-git knows only the packs it listed when opened.
		r.reopen()
		o, err = r.encodedObject(typ, h)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", typ, h, err)
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// ReadBlob reads a blob's content.
func (r *Repo) ReadBlob(h Hash) ([]byte, error) { return r.ReadObject(plumbing.BlobObject, h) }

// TreeEntry is one entry of a tree object.
type TreeEntry struct {
	Name string
	Mode uint32
	Hash Hash
}

// ReadTree decodes a tree object. The result is the caller's to change.
func (r *Repo) ReadTree(h Hash) ([]TreeEntry, error) {
	if es, ok := r.trees.get(h); ok {
		return es, nil
	}
	data, err := r.ReadObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	out, err := decodeTree(h, data)
	if err == nil {
		r.trees.put(h, out)
	}
	return out, err
}

// UseFolders gives the Repo a list of folders' entries (a folder as the
// index lists it), which Lookup and EditTree try before they read a tree
// that is not in the cache (see readTreeAt); nil: none.
func (r *Repo) UseFolders(list func(dir string) ([]TreeEntry, bool)) { r.folders = list }

// readTreeAt reads the tree h that stands at the folder dir ("" is the
// top): from the cache, else as the folder list gives dir when that is h,
// else from the object. A 400-file folder's tree took 0.2-0.3 ms to
// inflate and decode, and a step reads the tree of each folder it
// changes; the index lists the same entries. What entries hash to is what
// they are: where the index differs from the tree (the user staged a file
// in the folder), they are another tree's, and h is read as before.
func (r *Repo) readTreeAt(h Hash, dir string) ([]TreeEntry, error) {
	if es, ok := r.trees.get(h); ok {
		return es, nil
	}
	if r.folders != nil {
		// A name with a NUL (an index path may hold one) is not taken:
		// its bytes read back as other entries, so that the entries
		// would stand for a tree they are not.
		if es, ok := r.folders(dir); ok && !slices.ContainsFunc(es, nulInName) && plumbing.ComputeHash(plumbing.TreeObject, encodeTree(es)) == h {
			r.trees.put(h, es)
			return es, nil
		}
	}
	return r.ReadTree(h)
}

func nulInName(e TreeEntry) bool { return strings.IndexByte(e.Name, 0) >= 0 }

// treeCache keeps the trees a session read or wrote last, decoded: a step
// reads the trees on its paths twice (its changes, then EditTree), and
// the next call starts from the trees this one wrote. A tree's name is its
// content, so an entry never goes stale.
type treeCache struct {
	mu    sync.Mutex
	m     map[Hash][]TreeEntry
	order []Hash // oldest first
}

// treeCacheSize is how many trees treeCache keeps: a few steps' paths.
const treeCacheSize = 64

func (c *treeCache) get(h Hash) ([]TreeEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	es, ok := c.m[h]
	return slices.Clone(es), ok
}

func (c *treeCache) put(h Hash, es []TreeEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[Hash][]TreeEntry{}
	}
	if _, ok := c.m[h]; ok {
		return
	}
	if len(c.order) >= treeCacheSize {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
	c.m[h] = slices.Clone(es)
	c.order = append(c.order, h)
}

func decodeTree(h Hash, data []byte) ([]TreeEntry, error) {
	var out []TreeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+21 {
			return nil, fmt.Errorf("read tree %s: malformed entry", h)
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("read tree %s: bad mode %q", h, data[:sp])
		}
		var e TreeEntry
		e.Mode = uint32(mode)
		e.Name = string(data[sp+1 : nul])
		copy(e.Hash[:], data[nul+1:nul+21])
		out = append(out, e)
		data = data[nul+21:]
	}
	return out, nil
}

// compareTreeEntries orders entries as git sorts a tree: by name, a
// directory's as if it ended in "/" (without building that string: a
// 1,000-entry folder is sorted at every step that changes a file in it).
func compareTreeEntries(a, b TreeEntry) int {
	n := min(len(a.Name), len(b.Name))
	if c := strings.Compare(a.Name[:n], b.Name[:n]); c != 0 {
		return c
	}
	at, bt := treeNameEnd(a, n), treeNameEnd(b, n)
	return int(at) - int(bt)
}

// treeNameEnd is the byte of e's sort name at n: past its name, "/" for a
// directory, else none (0, which sorts first).
func treeNameEnd(e TreeEntry, n int) byte {
	switch {
	case n < len(e.Name):
		return e.Name[n]
	case e.Mode == ModeTree:
		return '/'
	}
	return 0
}

// encodeTree writes entries in git's order; modes carry no leading zero
// (fsck --strict rejects "040000").
func encodeTree(entries []TreeEntry) []byte {
	if !slices.IsSortedFunc(entries, compareTreeEntries) {
		slices.SortFunc(entries, compareTreeEntries)
	}
	n := 0
	for _, e := range entries {
		n += len(e.Name) + 29 // "100644 " name NUL hash
	}
	// One buffer of the right size: a 400-file folder's tree took 60 µs
	// to encode through a bytes.Buffer and a string per mode.
	b := make([]byte, 0, n)
	for _, e := range entries {
		b = strconv.AppendUint(b, uint64(e.Mode), 8)
		b = append(b, ' ')
		b = append(b, e.Name...)
		b = append(b, 0)
		b = append(b, e.Hash[:]...)
	}
	return b
}

// Lookup finds the entry at a slash-separated path under the tree root.
// A zero root is the empty tree.
func (r *Repo) Lookup(root Hash, path string) (TreeEntry, bool, error) {
	cur := root
	parts := strings.Split(path, "/")
	dir := 0 // path[:dir] is the folder that holds parts[i]
	for i, name := range parts {
		if cur.IsZero() {
			return TreeEntry{}, false, nil
		}
		if i > 0 {
			dir += len(parts[i-1]) + min(i-1, 1)
		}
		entries, err := r.readTreeAt(cur, path[:dir])
		if err != nil {
			return TreeEntry{}, false, err
		}
		var found *TreeEntry
		for k := range entries {
			if entries[k].Name == name {
				found = &entries[k]
				break
			}
		}
		if found == nil {
			return TreeEntry{}, false, nil
		}
		if i == len(parts)-1 {
			return *found, true, nil
		}
		if found.Mode != ModeTree {
			return TreeEntry{}, false, nil
		}
		cur = found.Hash
	}
	return TreeEntry{}, false, nil
}

// Change is one path's new state in a tree edit: a blob with a mode, or
// Delete.
type Change struct {
	Path   string
	Delete bool
	Mode   uint32
	Hash   Hash
}

// ConflictError is a tree edit that would need a file and a folder at the
// same path.
type ConflictError struct{ Path, Why string }

func (e *ConflictError) Error() string { return fmt.Sprintf("%s: %s", e.Path, e.Why) }

// EditTree returns the root tree that results from applying changes to root
// (zero: the empty tree). Only the trees on the changed paths are read and
// written, so the cost grows with the change, not with the repository.
// Folders left empty disappear, as git has no empty folders.
func (r *Repo) EditTree(root Hash, changes []Change) (Hash, error) {
	h, empty, err := r.editTree(root, "", changes)
	if err != nil {
		return ZeroHash, err
	}
	if empty {
		return r.WriteObject(plumbing.TreeObject, nil)
	}
	return h, nil
}

func (r *Repo) editTree(tree Hash, prefix string, changes []Change) (Hash, bool, error) {
	var entries []TreeEntry
	if !tree.IsZero() {
		var err error
		if entries, err = r.readTreeAt(tree, strings.TrimSuffix(prefix, "/")); err != nil {
			return ZeroHash, false, err
		}
	}
	idx := make(map[string]int, len(entries))
	for i, e := range entries {
		idx[e.Name] = i
	}
	deleted := make(map[string]bool)
	sub := make(map[string][]Change)
	var subOrder []string
	for _, c := range changes {
		rest := strings.TrimPrefix(c.Path, prefix)
		name, _, nested := strings.Cut(rest, "/")
		if !nested {
			i, ok := idx[name]
			switch {
			case c.Delete:
				if ok {
					deleted[name] = true
				}
			case ok && entries[i].Mode == ModeTree:
				return ZeroHash, false, &ConflictError{Path: c.Path, Why: "is a folder in the tree; delete what it holds first"}
			case ok:
				entries[i].Mode, entries[i].Hash = c.Mode, c.Hash
				delete(deleted, name)
			default:
				idx[name] = len(entries)
				entries = append(entries, TreeEntry{Name: name, Mode: c.Mode, Hash: c.Hash})
			}
			continue
		}
		if _, seen := sub[name]; !seen {
			subOrder = append(subOrder, name)
		}
		sub[name] = append(sub[name], c)
	}
	for _, name := range subOrder {
		var child Hash
		i, ok := idx[name]
		if ok && !deleted[name] {
			if entries[i].Mode != ModeTree {
				return ZeroHash, false, &ConflictError{Path: prefix + name, Why: "is a file in the tree, not a folder"}
			}
			child = entries[i].Hash
		}
		h, empty, err := r.editTree(child, prefix+name+"/", sub[name])
		if err != nil {
			return ZeroHash, false, err
		}
		switch {
		case empty && ok:
			deleted[name] = true
		case empty:
		case ok:
			entries[i].Mode, entries[i].Hash = ModeTree, h
			delete(deleted, name)
		default:
			idx[name] = len(entries)
			entries = append(entries, TreeEntry{Name: name, Mode: ModeTree, Hash: h})
		}
	}
	kept := entries[:0]
	for _, e := range entries {
		if !deleted[e.Name] {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		return ZeroHash, true, nil
	}
	h, err := r.WriteObject(plumbing.TreeObject, encodeTree(kept))
	if err == nil {
		r.trees.put(h, kept)
	}
	return h, false, err
}

// Signature is an author or committer line.
type Signature struct {
	Name, Email string
	When        time.Time
}

// String renders the signature the way a commit header holds it.
func (s Signature) String() string {
	_, off := s.When.Zone()
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("%s <%s> %d %c%02d%02d", s.Name, s.Email, s.When.Unix(), sign, off/3600, off%3600/60)
}

// ParseSignature reads "Name <email> 1700000000 +0100".
func ParseSignature(s string) (Signature, error) {
	lt := strings.LastIndex(s, "<")
	gt := strings.LastIndex(s, ">")
	if lt < 0 || gt < lt {
		return Signature{}, fmt.Errorf("malformed identity %q", s)
	}
	sig := Signature{Name: strings.TrimSpace(s[:lt]), Email: s[lt+1 : gt]}
	f := strings.Fields(s[gt+1:])
	if len(f) == 2 {
		sec, err1 := strconv.ParseInt(f[0], 10, 64)
		tz, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil && len(f[1]) == 5 {
			off := (tz/100*60 + tz%100) * 60
			sig.When = time.Unix(sec, 0).In(time.FixedZone("", off))
		}
	}
	return sig, nil
}

// Commit is a decoded commit object.
type Commit struct {
	Hash      Hash
	Tree      Hash
	Parents   []Hash
	Author    Signature
	Committer Signature
	Message   string
}

// Subject is the first line of the message.
func (c *Commit) Subject() string {
	s, _, _ := strings.Cut(c.Message, "\n")
	return s
}

// Trailer returns the value of the last "Key: value" line of the message.
func (c *Commit) Trailer(key string) string {
	lines := strings.Split(strings.TrimRight(c.Message, "\n"), "\n")
	for i := len(lines) - 1; i >= 0 && lines[i] != ""; i-- {
		if v, ok := strings.CutPrefix(lines[i], key+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// WriteCommit stores a commit object.
func (r *Repo) WriteCommit(tree Hash, parents []Hash, author, committer Signature, msg string) (Hash, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\n", tree)
	for _, p := range parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n%s", author, committer, msg)
	h, err := r.WriteObject(plumbing.CommitObject, b.Bytes())
	if err == nil {
		r.wroteMu.Lock()
		r.wrote, r.wroteTree = h, tree
		r.wroteMu.Unlock()
	}
	return h, err
}

// CommitTree returns the tree of commit h. The commit this Repo wrote last
// is answered from memory: a session's next call starts from it, and
// reading it back (a loose object: a stat, an open, an inflate) was a
// tenth of a millisecond of every MCP call. A commit's name is its
// content, so the answer never goes stale.
func (r *Repo) CommitTree(h Hash) (Hash, error) {
	r.wroteMu.Lock()
	wrote, tree := r.wrote, r.wroteTree
	r.wroteMu.Unlock()
	if h == wrote && !h.IsZero() {
		return tree, nil
	}
	c, err := r.ReadCommit(h)
	if err != nil {
		return ZeroHash, err
	}
	return c.Tree, nil
}

// ReadCommit decodes a commit object.
func (r *Repo) ReadCommit(h Hash) (*Commit, error) {
	data, err := r.ReadObject(plumbing.CommitObject, h)
	if err != nil {
		return nil, err
	}
	c := &Commit{Hash: h}
	head, msg, _ := bytes.Cut(data, []byte("\n\n"))
	c.Message = string(msg)
	for _, line := range strings.Split(string(head), "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "tree":
			c.Tree = plumbing.NewHash(v)
		case "parent":
			c.Parents = append(c.Parents, plumbing.NewHash(v))
		case "author":
			c.Author, _ = ParseSignature(v)
		case "committer":
			c.Committer, _ = ParseSignature(v)
		}
	}
	if c.Tree.IsZero() {
		return nil, errors.New("read commit " + h.String() + ": no tree")
	}
	return c, nil
}

// TreeDiff is one path that differs between two trees; a zero Mode on a
// side means the path is absent there.
type TreeDiff struct {
	Path     string
	From, To TreeEntry
}

// DiffTrees lists the files (blobs, links, submodules) that differ between
// trees a and b (zero: empty), in path order. Equal subtrees are skipped by
// name, so the cost follows the size of the difference.
func (r *Repo) DiffTrees(a, b Hash) ([]TreeDiff, error) {
	var out []TreeDiff
	err := r.diffTrees(a, b, "", &out)
	return out, err
}

func (r *Repo) diffTrees(a, b Hash, prefix string, out *[]TreeDiff) error {
	if a == b {
		return nil
	}
	load := func(h Hash) (map[string]TreeEntry, error) {
		m := map[string]TreeEntry{}
		if h.IsZero() {
			return m, nil
		}
		es, err := r.ReadTree(h)
		for _, e := range es {
			m[e.Name] = e
		}
		return m, err
	}
	am, err := load(a)
	if err != nil {
		return err
	}
	bm, err := load(b)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(am)+len(bm))
	for n := range am {
		names = append(names, n)
	}
	for n := range bm {
		if _, ok := am[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		ea, eb := am[n], bm[n]
		if ea.Mode == eb.Mode && ea.Hash == eb.Hash {
			continue
		}
		p := prefix + n
		var sa, sb Hash
		if ea.Mode == ModeTree {
			sa, ea = ea.Hash, TreeEntry{}
		}
		if eb.Mode == ModeTree {
			sb, eb = eb.Hash, TreeEntry{}
		}
		if !sa.IsZero() || !sb.IsZero() {
			if err := r.diffTrees(sa, sb, p+"/", out); err != nil {
				return err
			}
		}
		if ea.Mode != 0 || eb.Mode != 0 {
			ea.Name, eb.Name = p, p
			*out = append(*out, TreeDiff{Path: p, From: ea, To: eb})
		}
	}
	return nil
}
