package gitops

// This file reads and writes git's index (.git/index) without decoding it.
// Start at ReadIndex, then Update and WriteTo.
//
// The format is git's Documentation/gitformat-index.txt: a 12-byte header
// ("DIRC", version, entry count), the entries sorted by path then stage, the
// extensions, and a SHA-1 of everything before it. An Index keeps the file's
// bytes and one small slot per entry (offset, length, where its path is).
// Update splices slots; WriteTo copies the untouched runs of the old file in
// large blocks, encodes only the new entries (and, in version 4, the entry
// after each splice point, whose path is stored relative to its predecessor)
// and hashes the result once. At 100k entries that is a few milliseconds
// where decoding every entry into a struct and encoding it back costs
// hundreds (DESIGN.md, "gitops: facts measured").

import (
	"bytes"
	"crypto/sha1"
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Stat is the stat data git keeps for an entry, each field truncated to 32
// bits the way git's fill_stat_data does. git compares it with lstat(2) to
// decide whether a file may have changed without reading it.
type Stat struct {
	CtimeSec, CtimeNsec uint32
	MtimeSec, MtimeNsec uint32
	Dev, Ino            uint32
	UID, GID            uint32
	Size                uint32
}

// IndexEntry is one entry of the index.
type IndexEntry struct {
	Path  string   // slash-separated, relative to the work tree root
	Mode  uint32   // 0100644, 0100755, 0120000 (symlink) or 0160000 (gitlink)
	Hash  [20]byte // the blob (or, for a gitlink, the commit)
	Stat  Stat
	Stage int // 0 normally; 1 (base), 2 (ours), 3 (theirs) in a conflict
	// AssumeValid is git's "assume unchanged" bit; SkipWorktree and
	// IntentToAdd are the version-3 extended flags.
	AssumeValid, SkipWorktree, IntentToAdd bool
}

// UnsupportedIndexError reports an index file autocoder refuses to read
// because it cannot keep it valid (a version or required extension it does
// not know) or because the file is damaged (bad checksum, truncated).
// Nothing was changed.
type UnsupportedIndexError struct {
	Path   string // the index file
	Reason string // what is unsupported or damaged
	Fix    string // what the user can do about it
}

func (e *UnsupportedIndexError) Error() string {
	return fmt.Sprintf("read index %s: %s", e.Path, e.Reason)
}

// Hint says what to do so that autocoder can work with the repository.
func (e *UnsupportedIndexError) Hint() string { return e.Fix }

const (
	idxHeaderLen = 12
	idxHashLen   = 20
	// idxEntryFixed is the length of an entry before its extended flags or
	// path: ten 32-bit stat and mode fields, the object name, 16-bit flags.
	idxEntryFixed = 62

	idxFlagAssumeValid = 0x8000
	idxFlagExtended    = 0x4000
	idxFlagStageMask   = 0x3000
	idxFlagNameMask    = 0x0fff

	idxExtSkipWorktree = 0x4000
	idxExtIntentToAdd  = 0x2000

	idxModeGitlink = 0o160000
)

// idxSlot locates one entry. Slots are kept in git's order; Update splices
// them. A slot either points into the file's bytes (raw) or at an entry
// given to Update (fresh).
type idxSlot struct {
	off     uint32 // raw: offset of the encoded entry in Index.data; fresh: index in Index.fresh
	size    uint32 // raw: encoded length in Index.data
	nameOff uint32 // offset of the path in Index.names (raw) or Index.freshNames (fresh)
	nameLen uint32
	stage   uint8
	fresh   bool
	// given exempts the entry from racy smudging: the caller of Update
	// vouched that its stat data belongs to a file holding its blob. It is
	// cleared once the entry is on disk, because from then on a later write
	// can no more tell than git whether the file changed since.
	given bool
}

// idxExt is an extension kept for writing.
type idxExt struct {
	sig  string
	data []byte
}

// Index is git's index, read from a file and kept as that file's bytes plus
// an offset table. Lookups decode single entries on demand. An Index is not
// safe for concurrent use.
type Index struct {
	path    string
	version uint32
	data    []byte // the file as read; never modified
	names   []byte // where raw slots' paths live: data itself, or in version 4 the expanded paths
	slots   []idxSlot
	exts    []idxExt
	tree    *idxTree // the parsed TREE extension once Update touched it; nil before
	treeBad bool     // the TREE extension did not parse: it is dropped on write

	fresh      []IndexEntry // entries given to Update
	freshNames []byte

	// hashDone is closed when startHash is done with sum (the SHA-1 of
	// data up to the trailer) and checkpoints.
	hashDone    <-chan struct{}
	sum         []byte
	checkpoints []idxCheckpoint

	// mtime is the index file's own mtime when it was read (or last written
	// by WriteIndex), git's istate->timestamp for racy checks; 0 if there
	// was no file.
	mtimeSec, mtimeNsec uint32
}

// ReadIndex reads path (normally <gitdir>/index). A missing file is an empty
// version-2 index. It refuses, with *UnsupportedIndexError, a version other
// than 2, 3 and 4, the split index (extension "link"), the sparse index
// ("sdir"), any other extension git marks as required (signature starting
// with a lower-case letter), and a file whose checksum does not match.
//
// To write the index back, take Lock(path) before calling ReadIndex so that
// no git command changes the file in between.
func ReadIndex(path string) (*Index, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Index{path: path, version: 2}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	st := StatOf(fi)
	ix := &Index{path: path, data: make([]byte, fi.Size()), mtimeSec: st.MtimeSec, mtimeNsec: st.MtimeNsec}
	// Hash each chunk on the other core as soon as it is read, so that
	// verifying the checksum costs little more than reading.
	hashed := ix.startHash()
	for off := 0; off < len(ix.data); {
		n, err := io.ReadFull(f, ix.data[off:min(off+idxChunk, len(ix.data))])
		if err != nil {
			close(hashed)
			return nil, fmt.Errorf("read index %s: %w", path, err)
		}
		off += n
		hashed <- off
	}
	close(hashed)
	if err := ix.parse(); err != nil {
		return nil, err
	}
	return ix, nil
}

// idxChunk is how much of the file is read (and hashed) at a time. The
// hash state after each chunk is kept: a write whose output starts with the
// same bytes resumes from it instead of hashing them again.
const idxChunk = 256 << 10

// idxCheckpoint is the SHA-1 state after the first off bytes of the file.
type idxCheckpoint struct {
	off   int
	state []byte // from encoding.BinaryMarshaler; nil for the initial state
}

// startHash starts hashing ix.data up to its trailer in the background:
// the caller sends how many bytes are ready, and closes the channel when
// done (or giving up); parse collects the result.
func (ix *Index) startHash() chan<- int {
	ready := make(chan int, len(ix.data)/idxChunk+2)
	done := make(chan struct{})
	ix.hashDone = done
	go func() {
		defer close(done)
		end := max(len(ix.data)-idxHashLen, 0)
		h := sha1.New()
		cps := []idxCheckpoint{{off: 0}}
		pos := 0
		for n := range ready {
			if n = min(n, end); n > pos {
				h.Write(ix.data[pos:n])
				pos = n
				if st, err := h.(encoding.BinaryMarshaler).MarshalBinary(); err == nil {
					cps = append(cps, idxCheckpoint{pos, st})
				}
			}
		}
		if pos == end {
			ix.sum = h.Sum(nil)
			ix.checkpoints = cps
		}
	}()
	return ready
}

// parseIndex makes an Index of data, the content of the file path whose
// mtime was sec, nsec.
func parseIndex(path string, data []byte, sec, nsec uint32) (*Index, error) {
	ix := &Index{path: path, data: data, mtimeSec: sec, mtimeNsec: nsec}
	hashed := ix.startHash()
	hashed <- len(data)
	close(hashed)
	if err := ix.parse(); err != nil {
		return nil, err
	}
	return ix, nil
}

// damaged is the error for a file that is not a valid index.
func (ix *Index) damaged(format string, args ...any) error {
	return &UnsupportedIndexError{
		Path:   ix.path,
		Reason: "damaged index: " + fmt.Sprintf(format, args...),
		Fix:    "check with `git status`; if git also rejects the index, `git read-tree HEAD` rebuilds it from the last commit (staged changes are lost)",
	}
}

func (ix *Index) parse() error {
	d := ix.data
	if len(d) < idxHeaderLen+idxHashLen || string(d[:4]) != "DIRC" {
		return ix.damaged("no DIRC header")
	}
	ix.version = binary.BigEndian.Uint32(d[4:])
	if ix.version < 2 || ix.version > 4 {
		return &UnsupportedIndexError{
			Path:   ix.path,
			Reason: fmt.Sprintf("index version %d (autocoder reads versions 2, 3 and 4)", ix.version),
			Fix:    "convert it with `git update-index --index-version 4`",
		}
	}
	end := len(d) - idxHashLen

	// The checksum is being verified on the other core (startHash) while
	// this one indexes the entries. An all-zero trailer is git's
	// index.skipHash, which means "not computed".
	err := ix.scanEntries(end)
	<-ix.hashDone
	if err != nil {
		return err
	}
	if !bytes.Equal(d[end:], make([]byte, idxHashLen)) && !bytes.Equal(ix.sum, d[end:]) {
		return ix.damaged("checksum mismatch")
	}
	return nil
}

// scanEntries fills the slot table and the extension list, checking the
// structure and git's sort order.
func (ix *Index) scanEntries(end int) error {
	d := ix.data
	count := binary.BigEndian.Uint32(d[8:])
	// Every entry takes at least 62 bytes, so a count larger than the file
	// allows is damage, not a reason to allocate gigabytes.
	if uint64(count) > uint64(end-idxHeaderLen)/idxEntryFixed {
		return ix.damaged("header claims %d entries in %d bytes", count, len(d))
	}
	ix.slots = make([]idxSlot, count)
	ix.names = d
	v4 := ix.version == 4
	if v4 {
		ix.names = make([]byte, 0, len(d)/2)
	}
	pos := idxHeaderLen
	var prev []byte
	for i := range ix.slots {
		if pos+idxEntryFixed > end {
			return ix.damaged("entry %d of %d truncated at byte %d", i+1, count, pos)
		}
		flags := binary.BigEndian.Uint16(d[pos+60:])
		hdr := idxEntryFixed
		if flags&idxFlagExtended != 0 {
			if ix.version < 3 {
				return ix.damaged("entry %d at byte %d has extended flags in a version-2 index", i+1, pos)
			}
			hdr += 2
		}
		if pos+hdr >= end {
			return ix.damaged("entry %d of %d truncated at byte %d", i+1, count, pos)
		}
		s := &ix.slots[i]
		s.off = uint32(pos)
		s.stage = uint8(flags & idxFlagStageMask >> 12)
		var name []byte
		if !v4 {
			n := int(flags & idxFlagNameMask)
			start := pos + hdr
			if n == idxFlagNameMask { // 0xfff means "4095 or longer": find the NUL
				n = bytes.IndexByte(d[start:end], 0)
			}
			size := (hdr + n + 8) &^ 7 // path, then 1-8 NULs to a multiple of 8
			if n < 0 || pos+size > end || d[start+n] != 0 {
				return ix.damaged("entry %d at byte %d: path not terminated", i+1, pos)
			}
			s.size = uint32(size)
			s.nameOff, s.nameLen = uint32(start), uint32(n)
			name = d[start : start+n]
			pos += size
		} else {
			strip, vn, ok := idxReadVarint(d[pos+hdr : end])
			if !ok || strip > uint64(len(prev)) {
				return ix.damaged("entry %d at byte %d: bad path prefix length", i+1, pos)
			}
			start := pos + hdr + vn
			n := bytes.IndexByte(d[start:end], 0)
			if n < 0 {
				return ix.damaged("entry %d at byte %d: path not terminated", i+1, pos)
			}
			s.size = uint32(hdr + vn + n + 1)
			s.nameOff = uint32(len(ix.names))
			ix.names = append(ix.names, prev[:len(prev)-int(strip)]...)
			ix.names = append(ix.names, d[start:start+n]...)
			s.nameLen = uint32(len(ix.names)) - s.nameOff
			name = ix.names[s.nameOff:]
			pos += int(s.size)
		}
		if len(name) == 0 {
			return ix.damaged("entry %d at byte %d has an empty path", i+1, pos)
		}
		if i > 0 {
			c := bytes.Compare(prev, name)
			if c > 0 || c == 0 && (ix.slots[i-1].stage >= s.stage || ix.slots[i-1].stage == 0) {
				return ix.damaged("entries out of order at %q", name)
			}
		}
		prev = name
	}
	return ix.scanExtensions(pos, end)
}

// scanExtensions decides, extension by extension, what to keep.
func (ix *Index) scanExtensions(pos, end int) error {
	d := ix.data
	for pos < end {
		if pos+8 > end {
			return ix.damaged("extension header truncated at byte %d", pos)
		}
		sig := string(d[pos : pos+4])
		n := int(binary.BigEndian.Uint32(d[pos+4:]))
		if n > end-pos-8 {
			return ix.damaged("extension %q at byte %d runs past the end", sig, pos)
		}
		body := d[pos+8 : pos+8+n]
		pos += 8 + n
		switch {
		case sig == "TREE" || sig == "REUC":
			// TREE (cache tree) is kept and invalidated along the paths
			// Update touches, so git need not rebuild every tree on the
			// next commit. REUC (resolve undo) names no positions and
			// stays true whatever else changes.
			ix.exts = append(ix.exts, idxExt{sig, body})
		case sig == "link":
			return &UnsupportedIndexError{Path: ix.path, Reason: "split index (extension link)",
				Fix: "turn it off with `git update-index --no-split-index` (and `git config core.splitIndex false`), then retry"}
		case sig == "sdir":
			return &UnsupportedIndexError{Path: ix.path, Reason: "sparse index (extension sdir)",
				Fix: "expand it with `git config index.sparse false && git sparse-checkout reapply`, then retry"}
		case sig[0] >= 'A' && sig[0] <= 'Z':
			// Optional extensions git rebuilds by itself, dropped
			// knowingly rather than written back stale:
			//   UNTR (untracked cache) and FSMN (fsmonitor) record which
			//     entries and directories were verified unchanged, by
			//     entry position for FSMN; after a splice they would
			//     vouch for the wrong entries.
			//   EOIE and IEOT hold byte offsets into the entries, which a
			//     splice moves.
			//   Unknown upper-case ones are optional by git's rule and
			//     may hold positions too.
		default:
			return &UnsupportedIndexError{Path: ix.path, Reason: fmt.Sprintf("required index extension %q that autocoder does not know", sig),
				Fix: "a newer git or another tool wrote it; turn off the feature that uses it, or commit with git directly"}
		}
	}
	return nil
}

// idxReadVarint decodes git's offset varint (varint.c), used in version 4
// for the number of bytes to strip from the previous path.
func idxReadVarint(b []byte) (v uint64, n int, ok bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	c := b[0]
	v, n = uint64(c&127), 1
	for c&128 != 0 {
		if n >= len(b) || n >= 10 {
			return 0, 0, false
		}
		v++
		c = b[n]
		n++
		v = v<<7 | uint64(c&127)
	}
	return v, n, true
}

// idxAppendVarint encodes v the way git's encode_varint does.
func idxAppendVarint(b []byte, v uint64) []byte {
	var buf [16]byte
	pos := len(buf) - 1
	buf[pos] = byte(v & 127)
	for v >>= 7; v != 0; v >>= 7 {
		v--
		pos--
		buf[pos] = 128 | byte(v&127)
	}
	return append(b, buf[pos:]...)
}

// Version is the index format version that WriteTo writes: the version the
// file had, or 3 if Update added extended flags to a version-2 index.
func (ix *Index) Version() int { return int(ix.version) }

// Len is the number of entries, counting every stage.
func (ix *Index) Len() int { return len(ix.slots) }

// MTime is the index file's own mtime when it was read (zero if there was no
// file), after WriteIndex that of the file it wrote. Entries whose mtime is
// not older are racily clean: git cannot tell from stat data alone whether
// the file changed in the same second the index was written.
func (ix *Index) MTime() (sec, nsec uint32) { return ix.mtimeSec, ix.mtimeNsec }

func (ix *Index) name(s *idxSlot) []byte {
	if s.fresh {
		return ix.freshNames[s.nameOff : s.nameOff+s.nameLen]
	}
	return ix.names[s.nameOff : s.nameOff+s.nameLen]
}

// search returns the position of the first entry whose path is not less
// than path.
func (ix *Index) search(path string) int {
	return sort.Search(len(ix.slots), func(i int) bool { return string(ix.name(&ix.slots[i])) >= path })
}

// entry decodes the entry in slot s.
func (ix *Index) entry(s *idxSlot) IndexEntry {
	if s.fresh {
		return ix.fresh[s.off]
	}
	d := ix.data[s.off:]
	u := func(i int) uint32 { return binary.BigEndian.Uint32(d[i:]) }
	flags := binary.BigEndian.Uint16(d[60:])
	var ext uint16
	if flags&idxFlagExtended != 0 {
		ext = binary.BigEndian.Uint16(d[62:])
	}
	e := IndexEntry{
		Path: string(ix.name(s)),
		Mode: u(24),
		Stat: Stat{
			CtimeSec: u(0), CtimeNsec: u(4), MtimeSec: u(8), MtimeNsec: u(12),
			Dev: u(16), Ino: u(20), UID: u(28), GID: u(32), Size: u(36),
		},
		Stage:        int(s.stage),
		AssumeValid:  flags&idxFlagAssumeValid != 0,
		SkipWorktree: ext&idxExtSkipWorktree != 0,
		IntentToAdd:  ext&idxExtIntentToAdd != 0,
	}
	copy(e.Hash[:], d[40:60])
	return e
}

// Entry returns the stage-0 entry for path.
func (ix *Index) Entry(path string) (IndexEntry, bool) {
	i := ix.search(path)
	if i < len(ix.slots) && ix.slots[i].stage == 0 && string(ix.name(&ix.slots[i])) == path {
		return ix.entry(&ix.slots[i]), true
	}
	return IndexEntry{}, false
}

// Stages returns every entry for path in stage order: the stage-0 entry
// alone, or stages 1-3 (some may be missing) of a conflict.
func (ix *Index) Stages(path string) []IndexEntry {
	var out []IndexEntry
	for i := ix.search(path); i < len(ix.slots) && string(ix.name(&ix.slots[i])) == path; i++ {
		out = append(out, ix.entry(&ix.slots[i]))
	}
	return out
}

// HasPrefix returns the paths (each once, sorted) of the entries under the
// directory dir, that is starting with dir + "/". An empty dir means the
// whole tree.
func (ix *Index) HasPrefix(dir string) []string {
	if dir != "" {
		dir += "/"
	}
	var out []string
	for i := ix.search(dir); i < len(ix.slots); i++ {
		n := ix.name(&ix.slots[i])
		if !bytes.HasPrefix(n, []byte(dir)) {
			break
		}
		if len(out) == 0 || out[len(out)-1] != string(n) {
			out = append(out, string(n))
		}
	}
	return out
}

// All yields every entry in index order (path, then stage).
func (ix *Index) All() iter.Seq[IndexEntry] {
	return func(yield func(IndexEntry) bool) {
		for i := range ix.slots {
			if !yield(ix.entry(&ix.slots[i])) {
				return
			}
		}
	}
}

// Update replaces or inserts the entries of set at stage 0 and removes every
// stage of each path in remove, keeping git's order. A path in remove names
// a file, not a directory (list a directory's files with HasPrefix); one
// that is also in set is replaced, not removed. Like git's
// add_index_entry, a stage-0 entry also replaces the conflict stages of its
// path, a file that stands where its parent directories go ("a" when "a/b"
// is set), and the entries under it when it replaces a directory.
//
// The caller's contract: each entry's Stat is the lstat of a file whose
// content is exactly the entry's blob, taken after the file was last
// written. WriteTo trusts it and does not smudge these entries; a stat of a
// different file would make git report a modified file as clean.
//
// The cache tree (TREE extension) is invalidated along every touched path.
// Update checks the entries first and changes nothing when one is invalid.
func (ix *Index) Update(set []IndexEntry, remove []string) error {
	set = slices.Clone(set)
	slices.SortFunc(set, func(a, b IndexEntry) int { return strings.Compare(a.Path, b.Path) })
	inSet := make(map[string]bool, len(set))
	for i := range set {
		e := &set[i]
		if err := idxCheckPath(e.Path); err != nil {
			return fmt.Errorf("update index: %w", err)
		}
		switch e.Mode {
		case 0o100644, 0o100755, 0o120000, idxModeGitlink:
		default:
			return fmt.Errorf("update index: %s: mode %o is not one git stores (0100644, 0100755, 0120000, 0160000)", e.Path, e.Mode)
		}
		if e.Stage != 0 {
			return fmt.Errorf("update index: %s: stage %d: Update writes stage 0 only", e.Path, e.Stage)
		}
		if inSet[e.Path] {
			return fmt.Errorf("update index: %s given twice", e.Path)
		}
		inSet[e.Path] = true
	}
	for _, e := range set {
		for d := e.Path; ; {
			j := strings.LastIndexByte(d, '/')
			if j < 0 {
				break
			}
			d = d[:j]
			if inSet[d] {
				return fmt.Errorf("update index: %s is both a file and the directory of %s", d, e.Path)
			}
		}
	}

	// Collect the slot ranges to delete and the positions to insert at,
	// both against the current slots.
	var del [][2]int
	var touched []string
	delName := func(name string) {
		lo := ix.search(name)
		hi := lo
		for hi < len(ix.slots) && string(ix.name(&ix.slots[hi])) == name {
			hi++
		}
		if hi > lo {
			del = append(del, [2]int{lo, hi})
			touched = append(touched, name)
		}
	}
	for _, p := range remove {
		delName(p)
	}
	ins := make([]int, len(set))
	for k, e := range set {
		delName(e.Path)
		for d := e.Path; ; {
			j := strings.LastIndexByte(d, '/')
			if j < 0 {
				break
			}
			d = d[:j]
			delName(d)
		}
		lo := ix.search(e.Path + "/")
		hi := lo
		for hi < len(ix.slots) && bytes.HasPrefix(ix.name(&ix.slots[hi]), []byte(e.Path+"/")) {
			touched = append(touched, string(ix.name(&ix.slots[hi])))
			hi++
		}
		if hi > lo {
			del = append(del, [2]int{lo, hi})
		}
		ins[k] = ix.search(e.Path)
		touched = append(touched, e.Path)
	}
	slices.SortFunc(del, func(a, b [2]int) int { return a[0] - b[0] })

	ndel := 0
	var merged [][2]int
	for _, r := range del {
		if n := len(merged); n > 0 && r[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	for _, r := range merged {
		ndel += r[1] - r[0]
	}

	out := make([]idxSlot, 0, len(ix.slots)-ndel+len(set))
	pos, di := 0, 0
	// keep appends the slots in [pos, to) that no range deletes.
	keep := func(to int) {
		for pos < to {
			for di < len(merged) && merged[di][1] <= pos {
				di++
			}
			if di < len(merged) && merged[di][0] <= pos {
				pos = min(merged[di][1], to)
				continue
			}
			next := to
			if di < len(merged) {
				next = min(next, merged[di][0])
			}
			out = append(out, ix.slots[pos:next]...)
			pos = next
		}
	}
	for k := range set {
		e := &set[k]
		keep(ins[k])
		if e.SkipWorktree || e.IntentToAdd {
			ix.version = max(ix.version, 3) // version 2 has no extended flags
		}
		out = append(out, idxSlot{
			off:     uint32(len(ix.fresh)),
			nameOff: uint32(len(ix.freshNames)),
			nameLen: uint32(len(e.Path)),
			fresh:   true,
			given:   true,
		})
		ix.fresh = append(ix.fresh, *e)
		ix.freshNames = append(ix.freshNames, e.Path...)
	}
	keep(len(ix.slots))
	ix.slots = out

	if len(touched) > 0 {
		ix.invalidateTree(touched)
	}
	return nil
}

// idxCheckPath applies the rules of git's verify_path that matter here: a
// relative path of non-empty components, none of them ".", ".." or ".git".
func idxCheckPath(p string) error {
	if p == "" {
		return errors.New("empty path")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return fmt.Errorf("path %q contains a NUL byte", p)
	}
	for c := range strings.SplitSeq(p, "/") {
		if c == "" || c == "." || c == ".." || strings.EqualFold(c, ".git") {
			return fmt.Errorf("path %q: git does not track a path with an empty, \".\", \"..\" or \".git\" component", p)
		}
	}
	return nil
}

// idxTree is one node of the cache tree (TREE extension): the tree object a
// directory's span of the index would produce, and how many entries that
// span covers, or count -1 when the span changed since.
type idxTree struct {
	name  []byte
	count int
	hash  [20]byte
	subs  []*idxTree
	raw   []byte // the node and its subtrees exactly as read, while !dirty
	dirty bool
}

func (ix *Index) invalidateTree(paths []string) {
	if ix.tree == nil && !ix.treeBad {
		for _, x := range ix.exts {
			if x.sig == "TREE" {
				t, rest, ok := idxParseTree(x.data)
				// git, too, ignores a cache tree it cannot parse; it is
				// an optimisation, not data.
				ix.tree, ix.treeBad = t, !ok || len(rest) > 0
			}
		}
	}
	if ix.tree == nil || ix.treeBad {
		return
	}
	for _, p := range paths {
		ix.tree.invalidate(p)
	}
}

// idxParseTree parses one node and, recursively, its subtrees:
// "<name> NUL <count> SP <subtrees> LF [<hash>]".
func idxParseTree(b []byte) (*idxTree, []byte, bool) {
	all := b
	nul := bytes.IndexByte(b, 0)
	if nul < 0 {
		return nil, nil, false
	}
	t := &idxTree{name: b[:nul]}
	b = b[nul+1:]
	sp := bytes.IndexByte(b, ' ')
	lf := bytes.IndexByte(b, '\n')
	if sp < 0 || lf < sp {
		return nil, nil, false
	}
	count, err1 := strconv.Atoi(string(b[:sp]))
	nsub, err2 := strconv.Atoi(string(b[sp+1 : lf]))
	if err1 != nil || err2 != nil || count < -1 || nsub < 0 || nsub > len(b) {
		return nil, nil, false
	}
	t.count = count
	b = b[lf+1:]
	if count >= 0 {
		if len(b) < idxHashLen {
			return nil, nil, false
		}
		copy(t.hash[:], b)
		b = b[idxHashLen:]
	}
	t.subs = make([]*idxTree, 0, nsub)
	for range nsub {
		var sub *idxTree
		var ok bool
		if sub, b, ok = idxParseTree(b); !ok {
			return nil, nil, false
		}
		t.subs = append(t.subs, sub)
	}
	t.raw = all[:len(all)-len(b)]
	return t, b, true
}

// invalidate marks every node from the root to path as changed, the way
// git's cache_tree_invalidate_path does: those nodes lose their tree (count
// -1) but keep their subtrees, which stay valid; a subtree named like path
// itself is removed, since path is now a file or gone.
func (t *idxTree) invalidate(path string) {
	for {
		t.count, t.dirty = -1, true
		slash := strings.IndexByte(path, '/')
		if slash < 0 {
			t.subs = slices.DeleteFunc(slices.Clone(t.subs), func(s *idxTree) bool { return string(s.name) == path })
			return
		}
		var next *idxTree
		for _, s := range t.subs {
			if string(s.name) == path[:slash] {
				next = s
				break
			}
		}
		if next == nil {
			return
		}
		t, path = next, path[slash+1:]
	}
}

func (t *idxTree) appendTo(b []byte) []byte {
	if !t.dirty {
		return append(b, t.raw...)
	}
	b = append(b, t.name...)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(t.count), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(t.subs)), 10)
	b = append(b, '\n')
	if t.count >= 0 {
		b = append(b, t.hash[:]...)
	}
	for _, s := range t.subs {
		b = s.appendTo(b)
	}
	return b
}

// racy reports whether git could take the entry in s for clean while its
// file changed: its mtime is not older than the index file's. git's
// is_racy_timestamp compares nanoseconds only when git was built with
// USE_NSEC, which is not the default; comparing seconds smudges a superset
// of what either build considers racy, so it is right for both.
func (ix *Index) racy(s *idxSlot) bool {
	if s.given || ix.mtimeSec == 0 {
		return false
	}
	var mode, mtime, size uint32
	if s.fresh {
		e := &ix.fresh[s.off]
		mode, mtime, size = e.Mode, e.Stat.MtimeSec, e.Stat.Size
	} else {
		d := ix.data[s.off:]
		mode, mtime, size = binary.BigEndian.Uint32(d[24:]), binary.BigEndian.Uint32(d[8:]), binary.BigEndian.Uint32(d[36:])
	}
	return mode != idxModeGitlink && size != 0 && ix.mtimeSec <= mtime
}

// idxWriter hashes what it writes and remembers the first error. While
// the output is still byte for byte the file that was read, it does not
// hash: on the first difference it resumes from the read's last hash
// checkpoint before that point, so an update near the end of a large index
// costs a fraction of a full SHA-1 pass.
type idxWriter struct {
	ix   *Index
	w    *idxPipe
	h    hash.Hash // nil while the output equals ix.data so far
	n    int64
	same bool // the output so far is ix.data[:n]
}

// diverge starts hashing: from the checkpoint nearest before n, then the
// bytes between it and n, which are the file's own.
func (w *idxWriter) diverge() {
	w.same = false
	w.h = sha1.New()
	var cp idxCheckpoint
	for _, c := range w.ix.checkpoints {
		if c.off <= int(w.n) {
			cp = c
		}
	}
	if cp.state != nil {
		if err := w.h.(encoding.BinaryUnmarshaler).UnmarshalBinary(cp.state); err != nil {
			w.h.Reset()
			cp.off = 0
		}
	}
	w.h.Write(w.ix.data[cp.off:w.n])
}

// raw writes ix.data[a:b].
func (w *idxWriter) raw(a, b int) {
	if a == b {
		return
	}
	if w.same && a != int(w.n) {
		w.diverge()
	}
	w.emit(w.ix.data[a:b], true)
}

// write writes p, which the caller may change afterwards.
func (w *idxWriter) write(p []byte) {
	if w.same && (int(w.n)+len(p) > len(w.ix.data)-idxHashLen || !bytes.Equal(p, w.ix.data[w.n:int(w.n)+len(p)])) {
		w.diverge()
	}
	w.emit(p, false)
}

func (w *idxWriter) emit(p []byte, stable bool) {
	w.w.write(p, stable) // first, so that the kernel copies while we hash
	if !w.same {
		w.h.Write(p)
	}
	w.n += int64(len(p))
}

// idxPipe writes on a goroutine of its own, so that the copy of the output
// into the file overlaps hashing the next part on the other core.
type idxPipe struct {
	w    io.Writer
	ch   chan []byte
	done chan struct{}
	buf  []byte
	n    int64 // written; read after done
	err  error // the first write error; read after done
}

const idxPipeBuf = 64 << 10

func newIdxPipe(w io.Writer) *idxPipe {
	p := &idxPipe{w: w, ch: make(chan []byte, 64), done: make(chan struct{}), buf: make([]byte, 0, idxPipeBuf)}
	go func() {
		defer close(p.done)
		for b := range p.ch {
			if p.err != nil {
				continue
			}
			n, err := p.w.Write(b)
			p.n += int64(n)
			if err == nil && n < len(b) {
				err = io.ErrShortWrite
			}
			p.err = err
		}
	}()
	return p
}

// write queues b. A stable b (the file's own bytes, never modified) is
// handed over as it is; other bytes are copied first.
func (p *idxPipe) write(b []byte, stable bool) {
	if stable && len(b) >= idxPipeBuf/4 {
		p.flush()
		p.ch <- b
		return
	}
	if len(p.buf)+len(b) > cap(p.buf) {
		p.flush()
	}
	if len(b) > cap(p.buf) {
		p.ch <- slices.Clone(b)
		return
	}
	p.buf = append(p.buf, b...)
}

func (p *idxPipe) flush() {
	if len(p.buf) > 0 {
		p.ch <- p.buf
		p.buf = make([]byte, 0, idxPipeBuf)
	}
}

// close waits for every queued write.
func (p *idxPipe) close() (int64, error) {
	p.flush()
	close(p.ch)
	<-p.done
	return p.n, p.err
}

// WriteTo encodes the index into w, ending with the SHA-1 trailer.
//
// Racily clean entries are smudged: every entry not given to Update since
// the index was read whose mtime is not older than the index file's (see
// racy) is written with size 0. git does this in ce_smudge_racily_clean_entry
// for the entries whose content it found changed; once this file replaces
// the old one its newer mtime would make such an entry look clean for good.
// autocoder cannot afford to hash every such file, so it smudges them all,
// which costs git nothing but a content check on its next refresh.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	if ix.hashDone != nil {
		<-ix.hashDone
	}
	iw := &idxWriter{ix: ix, w: newIdxPipe(w), same: len(ix.checkpoints) > 0}
	if !iw.same {
		iw.h = sha1.New()
	}
	var hdr [idxHeaderLen]byte
	copy(hdr[:], "DIRC")
	binary.BigEndian.PutUint32(hdr[4:], ix.version)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(ix.slots)))
	iw.write(hdr[:])

	v4 := ix.version == 4
	scratch := make([]byte, 0, 4096)
	runStart, runEnd := 0, 0 // a run of raw entries to copy as one block
	prevEnd := uint32(idxHeaderLen)
	var prevName []byte
	for i := range ix.slots {
		s := &ix.slots[i]
		name := ix.name(s)
		// A raw entry is copied as it is unless it must be smudged or, in
		// version 4, it follows a different entry than in the file.
		copyRaw := !s.fresh && (!v4 || s.off == prevEnd)
		racy := ix.racy(s)
		if copyRaw && !racy {
			if int(s.off) != runEnd {
				iw.raw(runStart, runEnd)
				runStart = int(s.off)
			}
			runEnd = int(s.off + s.size)
		} else {
			iw.raw(runStart, runEnd)
			runStart, runEnd = 0, 0
			if copyRaw {
				scratch = append(scratch[:0], ix.data[s.off:s.off+s.size]...)
			} else {
				e := ix.entry(s)
				scratch = idxAppendEntry(scratch[:0], &e, ix.version, prevName)
			}
			if racy {
				binary.BigEndian.PutUint32(scratch[36:], 0)
			}
			iw.write(scratch)
		}
		prevName = name
		prevEnd = ^uint32(0)
		if !s.fresh {
			prevEnd = s.off + s.size
		}
	}
	iw.raw(runStart, runEnd)

	for _, x := range ix.exts {
		body := x.data
		if x.sig == "TREE" && ix.treeBad {
			continue
		}
		if x.sig == "TREE" && ix.tree != nil {
			body = ix.tree.appendTo(nil)
		}
		var eh [8]byte
		copy(eh[:], x.sig)
		binary.BigEndian.PutUint32(eh[4:], uint32(len(body)))
		iw.write(eh[:])
		iw.write(body)
	}
	if iw.same {
		iw.diverge()
	}
	iw.w.write(iw.h.Sum(nil), false)
	n, err := iw.w.close()
	if err != nil {
		return n, fmt.Errorf("write index: %w", err)
	}
	return n, nil
}

// idxAppendEntry encodes e in the given version; prev is the path of the
// entry before it, which version 4 stores e's path relative to.
func idxAppendEntry(b []byte, e *IndexEntry, version uint32, prev []byte) []byte {
	var f [idxEntryFixed]byte
	p := binary.BigEndian.PutUint32
	p(f[0:], e.Stat.CtimeSec)
	p(f[4:], e.Stat.CtimeNsec)
	p(f[8:], e.Stat.MtimeSec)
	p(f[12:], e.Stat.MtimeNsec)
	p(f[16:], e.Stat.Dev)
	p(f[20:], e.Stat.Ino)
	p(f[24:], e.Mode)
	p(f[28:], e.Stat.UID)
	p(f[32:], e.Stat.GID)
	p(f[36:], e.Stat.Size)
	copy(f[40:60], e.Hash[:])
	flags := uint16(min(len(e.Path), idxFlagNameMask)) | uint16(e.Stage&3)<<12
	if e.AssumeValid {
		flags |= idxFlagAssumeValid
	}
	var ext uint16
	if e.SkipWorktree {
		ext |= idxExtSkipWorktree
	}
	if e.IntentToAdd {
		ext |= idxExtIntentToAdd
	}
	if ext != 0 {
		flags |= idxFlagExtended
	}
	binary.BigEndian.PutUint16(f[60:], flags)
	b = append(b, f[:]...)
	hdr := idxEntryFixed
	if ext != 0 {
		b = binary.BigEndian.AppendUint16(b, ext)
		hdr += 2
	}
	if version == 4 {
		common := 0
		for common < len(prev) && common < len(e.Path) && prev[common] == e.Path[common] {
			common++
		}
		b = idxAppendVarint(b, uint64(len(prev)-common))
		b = append(b, e.Path[common:]...)
		return append(b, 0)
	}
	b = append(b, e.Path...)
	pad := (hdr+len(e.Path)+8)&^7 - hdr - len(e.Path)
	return append(b, make([]byte, pad)...)
}

// WriteIndex encodes ix into lock and commits it, replacing the index file
// in one rename. ix must have been read from lock.Path() while holding lock
// (the caller takes Lock(<gitdir>/index) before ReadIndex), so that no other
// writer's change is lost. On failure the lock is rolled back and the index
// file is unchanged.
//
// Afterwards ix describes the new file: racy checks of a later write compare
// with its mtime, and the entries given to Update are no longer exempt.
func WriteIndex(lock *LockFile, ix *Index) error {
	if filepath.Clean(lock.Path()) != filepath.Clean(ix.path) {
		lock.Rollback()
		return fmt.Errorf("write index: the lock is on %s but the index was read from %s", lock.Path(), ix.path)
	}
	if _, err := ix.WriteTo(lock); err != nil {
		lock.Rollback()
		return err
	}
	if err := lock.Commit(); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	// Without the new mtime (stat failed) keep comparing with the old
	// one: it is older, so that smudges more, never less.
	if fi, err := os.Stat(ix.path); err == nil {
		st := StatOf(fi)
		ix.mtimeSec, ix.mtimeNsec = st.MtimeSec, st.MtimeNsec
	}
	for i := range ix.slots {
		ix.slots[i].given = false
	}
	return nil
}
