package gitops

// The packed objects of a repository, found without go-git's decoding of
// every pack index (packidx.go): the list of packs is read once per open of
// the object store, each pack's index is mapped at its first lookup, and
// each pack file is opened at its first read, for go-git's pack reader.
// Loose objects and alternates stay go-git's to read.

import (
	"errors"
	"os"
	"path/filepath"
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
	}
}

// looseExists reports whether h has a loose file.
func (r *Repo) looseExists(h plumbing.Hash) bool {
	hex := h.String()
	_, err := os.Lstat(filepath.Join(r.CommonDir, "objects", hex[:2], hex[2:]))
	return err == nil
}

// hasObject reports whether the repository holds h: packed (packSet),
// loose, or, only when this cannot tell (alternates, a pack index it cannot
// read), as go-git finds it.
func (r *Repo) hasObject(h plumbing.Hash) bool {
	found, complete := r.packs.has(h)
	if found || r.looseExists(h) {
		return true
	}
	if complete && !r.alternates {
		return false
	}
	return r.objects.HasEncodedObject(h) == nil
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
