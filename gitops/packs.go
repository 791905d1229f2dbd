package gitops

// The packed objects of a repository, found without go-git's decoding of
// every pack index (packidx.go): the list of packs is read once per open of
// the object store, each pack's index is mapped at its first lookup, and
// each pack file is opened at its first read.
//
// An object stored whole (not as a delta) in a pack, or loose in the
// object folder, is read here (readDirect): its header, then its zlib
// stream inflated to the size the header gives, as git's
// unpack_compressed_entry does. go-git's readers copy the object twice, run
// a CRC-32 over the packed bytes and hash the content (with SHA-1 collision
// detection) for their cache: 0.2-0.3 ms for one 15 KB tree, which is every
// step's folder tree that is not cached yet. Deltas, alternates and
// anything this read does not take (a damaged object, another type) stay
// go-git's, whose answer, errors included, is as before.

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// packSet is the packs of objects/pack as listed when the object store was
// (re)opened.
type packSet struct {
	mu     sync.Mutex
	dir    string // objects/pack
	listed bool
	packs  []*packEntry
	cache  cache.Object // go-git's object cache, shared with the store
	// unknown is set when a pack's index could not be used here (version
	// 1, damaged): an object not found is then asked of go-git, which
	// reads or refuses that pack as before.
	unknown bool
}

type packEntry struct {
	name string // "pack-<sha>", without extension
	idx  *packIdx
	err  error // mapping the index failed
	pf   *packfile.Packfile
	f    *os.File // the pack, for readWhole; opened at its first use
	ferr error    // opening it failed
}

func newPackSet(dir string, c cache.Object) *packSet { return &packSet{dir: dir, cache: c} }

// list reads the folder once: every .idx whose .pack is beside it (git
// ignores an index without its pack, one being written).
func (s *packSet) list() {
	if s.listed {
		return
	}
	s.listed = true
	des, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	have := map[string]bool{}
	for _, de := range des {
		have[de.Name()] = true
	}
	for _, de := range des {
		if n, ok := strings.CutSuffix(de.Name(), ".idx"); ok && strings.HasPrefix(n, "pack-") && have[n+".pack"] {
			s.packs = append(s.packs, &packEntry{name: n})
		}
	}
}

// index maps p's index on first use.
func (s *packSet) index(p *packEntry) *packIdx {
	if p.idx == nil && p.err == nil {
		p.idx, p.err = openPackIdx(filepath.Join(s.dir, p.name+".idx"))
		if p.err == nil && "pack-"+plumbing.Hash(p.idx.pack).String() != p.name {
			// go-git's loadIdxFile check: the index describes another pack.
			p.idx, p.err = nil, errors.New("pack index of another pack")
		}
		if p.err != nil {
			s.unknown = true
		}
	}
	return p.idx
}

// find is the pack holding h, nil if none of the indexes this set can read
// names it.
func (s *packSet) find(h plumbing.Hash) *packEntry {
	s.list()
	for _, p := range s.packs {
		if x := s.index(p); x != nil {
			if _, ok := x.find(h); ok {
				return p
			}
		}
	}
	return nil
}

// has reports whether a pack holds h; incomplete when a pack's index
// could not be read here (see unknown).
func (s *packSet) has(h plumbing.Hash) (found, complete bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.find(h) != nil {
		return true, true
	}
	return false, !s.unknown
}

// get reads h from the pack that holds it; ok is false when no pack this
// set can read holds it.
func (s *packSet) get(h plumbing.Hash) (o plumbing.EncodedObject, ok, complete bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.find(h)
	if p == nil {
		return nil, false, !s.unknown, nil
	}
	if p.pf == nil {
		fs := osfs.New(s.dir)
		f, err := fs.Open(p.name + ".pack")
		if errors.Is(err, os.ErrNotExist) {
			// A git gc removed the pack since the list was read: not
			// found here, which makes ReadObject reopen and look again.
			return nil, true, true, plumbing.ErrObjectNotFound
		}
		if err != nil {
			return nil, true, true, err
		}
		p.pf = packfile.NewPackfileWithCache(p.idx, fs, f, s.cache, 0)
	}
	o, err = p.pf.Get(h)
	return o, true, true, err
}

// close closes the pack files opened; the indexes unmap themselves when
// nothing uses them (openPackIdx).
func (s *packSet) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.packs {
		if p.pf != nil {
			p.pf.Close()
			p.pf = nil
		}
		if p.f != nil {
			p.f.Close()
			p.f = nil
		}
	}
}

// readWhole reads h from the pack holding it when it is stored there whole
// and of type typ (AnyObject: any); ok is false otherwise, and on any
// failure: the caller asks go-git then. packed is whether a pack this set
// reads holds h, whole or not.
func (s *packSet) readWhole(typ plumbing.ObjectType, h plumbing.Hash) (data []byte, packed, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.find(h)
	if p == nil {
		return nil, false, false
	}
	data, ok = s.readEntry(p, typ, h)
	return data, true, ok
}

// readEntry is readWhole's read of h in p, the pack holding it.
func (s *packSet) readEntry(p *packEntry, typ plumbing.ObjectType, h plumbing.Hash) ([]byte, bool) {
	if p.f == nil && p.ferr == nil {
		p.f, p.ferr = os.Open(filepath.Join(s.dir, p.name+".pack"))
	}
	if p.ferr != nil {
		return nil, false
	}
	off, err := p.idx.FindOffset(h)
	if err != nil {
		return nil, false
	}
	// The entry's header: the type in bits 4-6 of the first byte, the
	// size in its low 4 bits and 7 bits of each next byte, while the top
	// bit is set (git's unpack_object_header_buffer).
	var head [16]byte
	n, _ := p.f.ReadAt(head[:], off)
	if n == 0 {
		return nil, false
	}
	t := plumbing.ObjectType(head[0] >> 4 & 7)
	size, shift, i := uint64(head[0]&15), 4, 0
	for head[i]&0x80 != 0 {
		i++
		if i >= n || shift > 57 {
			return nil, false
		}
		size += uint64(head[i]&0x7f) << shift
		shift += 7
	}
	if t < plumbing.CommitObject || t > plumbing.TagObject || typ != plumbing.AnyObject && t != typ || size > maxDirect {
		return nil, false // a delta, another type, or too large to read whole here
	}
	return inflateExactly(io.NewSectionReader(p.f, off+int64(i)+1, 1<<62), size)
}

// readDirect reads h, of type typ, where it is stored whole: in a pack
// (packSet.readWhole) or loose. ok is false where it is not, or the read
// failed: ReadObject asks go-git then.
func (r *Repo) readDirect(typ plumbing.ObjectType, h plumbing.Hash) ([]byte, bool) {
	data, packed, ok := r.packs.readWhole(typ, h)
	if packed {
		// A packed object is the pack's, as git reads it (packs first),
		// even where a loose file has its name: one with other bytes, in a
		// stranger's repository, is not what git answers for h.
		return data, ok
	}
	return r.readLoose(typ, h)
}

// maxDirect is the largest object readDirect reads: a larger one is left
// to go-git (which reads it whole too), so that a damaged size cannot make
// this read allocate gigabytes.
const maxDirect = 1 << 30

var zlibReaders sync.Pool

// inflate reads the zlib stream r holds with read, which must leave
// nothing of it unread: the stream then ends there, its checksum verified.
func inflate(r io.Reader, read func(zr io.Reader) ([]byte, bool)) ([]byte, bool) {
	var zr io.ReadCloser
	if v := zlibReaders.Get(); v != nil {
		zr = v.(io.ReadCloser)
		if zr.(zlib.Resetter).Reset(r, nil) != nil {
			return nil, false
		}
	} else {
		var err error
		if zr, err = zlib.NewReader(r); err != nil {
			return nil, false
		}
	}
	defer zlibReaders.Put(zr)
	data, ok := read(zr)
	if !ok {
		return nil, false
	}
	var one [1]byte
	if n, err := zr.Read(one[:]); n != 0 || err != io.EOF {
		return nil, false // more bytes than the size, or a bad checksum
	}
	return data, true
}

// inflateExactly inflates the zlib stream r holds, which must end after
// exactly size bytes.
func inflateExactly(r io.Reader, size uint64) ([]byte, bool) {
	return inflate(r, func(zr io.Reader) ([]byte, bool) { return readExactly(zr, size) })
}

func readExactly(zr io.Reader, size uint64) ([]byte, bool) {
	if size <= 1<<20 {
		data := make([]byte, size)
		_, err := io.ReadFull(zr, data)
		return data, err == nil
	}
	// A large size is believed only as far as the stream bears it out: a
	// damaged or hostile header does not make this read allocate it.
	var b bytes.Buffer
	b.Grow(1 << 20)
	n, err := io.Copy(&b, io.LimitReader(zr, int64(size)))
	return b.Bytes(), err == nil && uint64(n) == size
}

// readLoose reads h's loose file in the object folder when it is of type
// typ (AnyObject: any): the zlib stream of "<type> <size>\x00" and the
// content (git's unpack_loose_header, then the rest).
func (r *Repo) readLoose(typ plumbing.ObjectType, h plumbing.Hash) ([]byte, bool) {
	f, err := os.Open(r.looseFile(h))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 16<<10)
	data, ok := inflate(br, func(zr io.Reader) ([]byte, bool) {
		var head []byte
		var c [1]byte
		for len(head) < 32 {
			if _, err := io.ReadFull(zr, c[:]); err != nil {
				return nil, false
			}
			if c[0] == 0 {
				break
			}
			head = append(head, c[0])
		}
		name, num, found := strings.Cut(string(head), " ")
		t, err := plumbing.ParseObjectType(name)
		size, serr := strconv.ParseUint(num, 10, 64)
		if c[0] != 0 || !found || err != nil || serr != nil || size > maxDirect || typ != plumbing.AnyObject && t != typ {
			return nil, false
		}
		return readExactly(zr, size)
	})
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, false // bytes after the stream: git calls it garbage
	}
	return data, ok
}

// looseExists reports whether h has a loose file: a regular file at its
// name. A folder there (planted in a repository received whole) is no
// object: taken for one, a step committed a blob that git cannot read.
func (r *Repo) looseExists(h plumbing.Hash) bool {
	fi, err := os.Lstat(r.looseFile(h))
	return err == nil && fi.Mode().IsRegular()
}

// looseFile is the name of h's loose file: objects/ab/cdef….
func (r *Repo) looseFile(h plumbing.Hash) string {
	hex := h.String()
	return filepath.Join(r.CommonDir, "objects", hex[:2], hex[2:])
}

// hasObject reports whether the repository holds h: packed (packSet),
// loose, or, only when this cannot tell (alternates, a pack index it cannot
// read), as go-git finds it.
func (r *Repo) hasObject(h plumbing.Hash) bool {
	return r.hasUnlessLoose(h) || r.looseExists(h)
}

// hasUnlessLoose is hasObject without the look for a loose file of the
// object folder (WriteObject's question: it writes one again rather than
// look for it), which go-git's answer may still find.
func (r *Repo) hasUnlessLoose(h plumbing.Hash) bool {
	found, complete := r.packs.has(h)
	if found {
		return true
	}
	if complete && !r.alternates || r.objects.HasEncodedObject(h) != nil {
		return false
	}
	// go-git opens the loose name first, and a folder planted there
	// opens: its yes is then no object (see looseExists).
	fi, err := os.Lstat(r.looseFile(h))
	return err != nil || fi.Mode().IsRegular()
}

// encodedObject reads h: from a pack (packSet), or loose through go-git,
// whose own pack lookup is left for what packSet cannot tell (alternates,
// a pack index it cannot read).
func (r *Repo) encodedObject(typ plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, ok, complete, err := r.packs.get(h)
	if ok {
		if err != nil {
			return nil, err
		}
		if typ != plumbing.AnyObject && o.Type() != typ {
			return nil, plumbing.ErrObjectNotFound // as go-git answers a type mismatch
		}
		return o, nil
	}
	if !r.looseExists(h) && complete && !r.alternates {
		return nil, plumbing.ErrObjectNotFound
	}
	return r.objects.EncodedObject(typ, h)
}
