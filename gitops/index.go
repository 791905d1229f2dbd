package gitops

// This file holds the types of git's index (.git/index), read and written
// without decoding it. The work is split by job: index_read.go (ReadIndex:
// parse and verify), index_entries.go (lookups), index_update.go (Update),
// index_tree.go (the cache tree, TREE extension), index_write.go
// (WriteTo, WriteIndex) and index_split.go (git's split index: a shared
// index file plus a small one with the changes). Start at ReadIndex, then Update and WriteTo.
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
	"fmt"
	"time"
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
	// rawMtime bounds the mtime of every raw slot that could be racy (see
	// racyRawFree), once rawMtimeKnown; data's entries never change, so
	// the bound holds until data is replaced.
	rawMtime      uint32
	rawMtimeKnown bool

	// The split index (index_split.go). While reading: link is the file's
	// link extension and stripped the number of leading entries without a
	// path (the replacements). After: base is the shared index the slots
	// are split against (data is its bytes), wantSplit whether WriteIndex
	// writes split, maxPercent git's splitIndex.maxPercentChange.
	link       *idxLink
	stripped   int
	base       *idxBase
	wantSplit  bool
	maxPercent int
	// sharedExpire is git's splitIndex.sharedIndexExpire (ParseExpiry):
	// 0 the default, negative never.
	sharedExpire time.Duration
}
