package gitops

// A pack's index (.idx), looked up where it lies instead of decoded: git's
// find_pack_entry_one (packfile.c) on the mapped file. go-git decodes every
// .idx of the repository into memory the first time it looks for a packed
// object (storage/filesystem's requireIndex: over a thousand small reads
// and 100k names copied at 100k objects), which every `autocoder apply`
// paid at its first lookup; a lookup here reads the fan-out entry and
// about log2(n) names.
//
// The format (gitformat-pack, "pack-*.idx files have the following
// format", version 2), every number big-endian:
//
//   - "\377tOc", then the version, 2;
//   - the fan-out table: 256 counts, entry b the number of objects whose
//     name's first byte is at most b (entry 255 is the object count n);
//   - the n object names, sorted, 20 bytes each;
//   - n CRC-32s of the packed data, in the same order;
//   - n 31-bit offsets into the pack; one with the top bit set is instead
//     the position of its 64-bit offset in the next table (packs over 2 GiB);
//   - the 64-bit offsets;
//   - the pack's checksum and the index's own.
//
// Version 1 (no header, offset and name side by side) is left to go-git,
// which refuses it as before.

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/autocoder/autocoder/internal/mapfile"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// packIdx is one mapped .idx file. It implements go-git's idxfile.Index,
// so that go-git's packfile reader reads the objects it locates.
type packIdx struct {
	data   []byte // the whole file, mapped (or read where there is no mmap)
	n      int
	fanout []byte // 256 × 4 bytes
	names  []byte // n × 20
	crcs   []byte // n × 4
	offs   []byte // n × 4
	offs64 []byte // the 64-bit offsets
	pack   [20]byte

	// byOffset is the positions ordered by offset, for FindHash (go-git
	// names an OFS_DELTA's base by offset); built on first use.
	revOnce  sync.Once
	byOffset []uint32
}

var _ idxfile.Index = (*packIdx)(nil)

// errIdxVersion is an .idx in a version other than 2.
var errIdxVersion = errors.New("not a version-2 pack index")

// openPackIdx maps path and checks its structure as git's
// check_packed_git_idx does: the header, a fan-out table that never
// decreases, and a size that fits the object count.
func openPackIdx(path string) (*packIdx, error) {
	data, release, err := mapfile.Map(path)
	if err != nil {
		return nil, fmt.Errorf("read pack index %s: %w", path, err)
	}
	x, err := parsePackIdx(data)
	if err != nil {
		release()
		return nil, fmt.Errorf("read pack index %s: %w", path, err)
	}
	// The mapping goes when nothing uses the index any more: an object
	// go-git read from the pack may outlive a reopen of the store.
	runtime.AddCleanup(x, func(release func()) { release() }, release)
	return x, nil
}

func parsePackIdx(data []byte) (*packIdx, error) {
	const head = 8 + 256*4
	if len(data) < head+40 {
		return nil, fmt.Errorf("%d bytes: too small", len(data))
	}
	if string(data[:4]) != "\377tOc" || binary.BigEndian.Uint32(data[4:]) != 2 {
		return nil, errIdxVersion
	}
	x := &packIdx{data: data, fanout: data[8:head]}
	prev := uint32(0)
	for i := range 256 {
		c := binary.BigEndian.Uint32(x.fanout[4*i:])
		if c < prev {
			return nil, fmt.Errorf("fan-out table decreases at %d", i)
		}
		prev = c
	}
	n := uint64(prev)
	minSize := head + n*28 + 40
	if uint64(len(data)) < minSize {
		return nil, fmt.Errorf("%d bytes for %d objects: truncated", len(data), n)
	}
	extra := uint64(len(data)) - minSize
	if extra%8 != 0 || n > 0 && extra > (n-1)*8 || n == 0 && extra > 0 {
		return nil, fmt.Errorf("%d bytes for %d objects: wrong size", len(data), n)
	}
	x.n = int(n)
	at := uint64(head)
	take := func(k uint64) []byte { b := data[at : at+k]; at += k; return b }
	x.names, x.crcs, x.offs, x.offs64 = take(n*20), take(n*4), take(n*4), take(extra)
	copy(x.pack[:], data[at:])
	return x, nil
}

// find is the position of h, as git's bsearch_hash: the fan-out table
// bounds the names starting with h's first byte, then a binary search.
func (x *packIdx) find(h plumbing.Hash) (int, bool) {
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(x.fanout[4*(int(h[0])-1):]))
	}
	hi := int(binary.BigEndian.Uint32(x.fanout[4*int(h[0]):]))
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(x.names[20*mid:20*mid+20], h[:]); {
		case c == 0:
			return mid, true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

// offset is the pack offset of the object at position i.
func (x *packIdx) offset(i int) (int64, error) {
	o := binary.BigEndian.Uint32(x.offs[4*i:])
	if o&0x80000000 == 0 {
		return int64(o), nil
	}
	k := int(o & 0x7fffffff)
	if 8*k+8 > len(x.offs64) {
		return 0, fmt.Errorf("pack index: 64-bit offset %d of %d", k, len(x.offs64)/8)
	}
	v := binary.BigEndian.Uint64(x.offs64[8*k:])
	if v > 1<<62 {
		return 0, fmt.Errorf("pack index: offset %d out of range", v)
	}
	return int64(v), nil
}

func (x *packIdx) hash(i int) (h plumbing.Hash) {
	copy(h[:], x.names[20*i:])
	return h
}

// Contains reports whether the pack holds h.
func (x *packIdx) Contains(h plumbing.Hash) (bool, error) {
	_, ok := x.find(h)
	return ok, nil
}

// FindOffset is h's offset in the pack.
func (x *packIdx) FindOffset(h plumbing.Hash) (int64, error) {
	i, ok := x.find(h)
	if !ok {
		return 0, plumbing.ErrObjectNotFound
	}
	return x.offset(i)
}

// FindCRC32 is the CRC-32 of h's packed data.
func (x *packIdx) FindCRC32(h plumbing.Hash) (uint32, error) {
	i, ok := x.find(h)
	if !ok {
		return 0, plumbing.ErrObjectNotFound
	}
	return binary.BigEndian.Uint32(x.crcs[4*i:]), nil
}

// FindHash is the name of the object at offset o: a binary search of the
// positions ordered by offset (git's pack_pos_to_index with an in-memory
// reverse index), built once per index on the first call.
func (x *packIdx) FindHash(o int64) (plumbing.Hash, error) {
	rev, err := x.reverse()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	k, found := slices.BinarySearchFunc(rev, o, func(p uint32, o int64) int {
		v, _ := x.offset(int(p))
		return cmp.Compare(v, o)
	})
	if !found {
		return plumbing.ZeroHash, plumbing.ErrObjectNotFound
	}
	return x.hash(int(rev[k])), nil
}

func (x *packIdx) reverse() ([]uint32, error) {
	var err error
	x.revOnce.Do(func() {
		offs := make([]int64, x.n)
		rev := make([]uint32, x.n)
		for i := range x.n {
			if offs[i], err = x.offset(i); err != nil {
				return
			}
			rev[i] = uint32(i)
		}
		slices.SortFunc(rev, func(a, b uint32) int { return cmp.Compare(offs[a], offs[b]) })
		x.byOffset = rev
	})
	if err != nil {
		return nil, err
	}
	if x.byOffset == nil && x.n > 0 {
		return nil, errors.New("pack index: bad offsets")
	}
	return x.byOffset, nil
}

// Count is the number of objects.
func (x *packIdx) Count() (int64, error) { return int64(x.n), nil }

// Entries yields every object in name order.
func (x *packIdx) Entries() (idxfile.EntryIter, error) {
	return &packIdxIter{x: x}, nil
}

// EntriesByOffset yields every object in pack order.
func (x *packIdx) EntriesByOffset() (idxfile.EntryIter, error) {
	rev, err := x.reverse()
	if err != nil {
		return nil, err
	}
	return &packIdxIter{x: x, order: rev}, nil
}

// packIdxIter walks the positions in name order, or in order.
type packIdxIter struct {
	x     *packIdx
	order []uint32
	i     int
}

func (it *packIdxIter) Next() (*idxfile.Entry, error) {
	if it.i >= it.x.n {
		return nil, io.EOF
	}
	p := it.i
	if it.order != nil {
		p = int(it.order[it.i])
	}
	it.i++
	o, err := it.x.offset(p)
	if err != nil {
		return nil, err
	}
	return &idxfile.Entry{Hash: it.x.hash(p), CRC32: binary.BigEndian.Uint32(it.x.crcs[4*p:]), Offset: uint64(o)}, nil
}

func (it *packIdxIter) Close() error { return nil }
