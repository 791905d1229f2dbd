// Package index reads, changes and writes git's index file (.git/index and
// the shared index files of a split index) without decoding it whole, as
// go-git keeps its codec apart (plumbing/format/index). It knows the file
// format and nothing else of git's layout: the caller (gitops) says where
// the file is and takes its lock. Start at ReadIndexWith, then Update,
// PrepareIndex and FinishIndex. The work is split by job: read.go
// (ReadIndexWith: parse and verify), entries.go (lookups), update.go
// (Update), tree.go (the cache tree), write.go (WriteTo, PrepareIndex,
// FinishIndex), split.go (git's split index) and
// stat.go with its per-system files (the stat data git records).
//
// # The format
//
// git's Documentation/gitformat-index.txt; every number is big-endian.
//
//   - Header, 12 bytes: "DIRC", the version (2, 3 or 4), the entry count.
//   - Entries, sorted by path (bytes) then stage. Each is 62 fixed bytes:
//     ctime and mtime (seconds, nanoseconds), dev, ino, mode, uid, gid and
//     size, each 32 bits and truncated to them (Stat); the object name (20
//     bytes); 16 bits of flags: assume-valid (0x8000), extended (0x4000),
//     the stage (0x3000) and the path length (0x0fff, 0xfff meaning "4095
//     or more"). Version 3 adds 16 more bits of flags when extended is set:
//     skip-worktree (0x4000) and intent-to-add (0x2000). Then the path. In
//     versions 2 and 3 the path is followed by 1-8 NULs, padding the entry
//     to a multiple of 8 bytes; in version 4 the path is stored as a varint
//     (git's varint.c) saying how many bytes to strip from the end of the
//     previous entry's path, then the suffix to append, then one NUL.
//   - Extensions, each a 4-byte signature, a 32-bit length and the body. A
//     signature starting with an upper-case letter is optional: a reader
//     that does not know it may skip it. This package keeps TREE (the cache
//     tree: per directory, the tree object its entries make, invalidated
//     along the paths Update touches) and REUC (resolve undo), reads and
//     writes link (the split index, below), refuses sdir (the sparse index)
//     and every other required (lower-case) extension, and drops the
//     optional ones that hold entry positions or byte offsets a splice
//     would make wrong (UNTR, FSMN, EOIE, IEOT): git rebuilds them.
//   - A SHA-1 of everything before it, 20 bytes; all zero when git wrote
//     it with index.skipHash.
//
// A split index (core.splitIndex; gitformat-index's "Split index" and git's
// split-index.c) keeps most entries in <gitdir>/sharedindex.<sha>, a whole
// index without extensions named by its own checksum, and the index file
// holds only what changed since: its link extension holds the shared
// index's SHA-1, then two EWAH bitmaps over the shared index's positions
// (the entries deleted, the entries replaced). The file's own entries are
// first the replacements, in the order of their positions and with empty
// paths, then the entries that are new, sorted.
//
// # How it is kept
//
// An Index keeps the file's bytes, a table of small slots for its entries
// (offset, length, where its path is; for a shared index verified before,
// read in place from its kept scan) and the index's entries as runs of
// that table and fresh entries (slots.go). Update splices runs; WriteTo copies the
// untouched runs of the old file in large blocks, encodes only the new
// entries (and, in version 4, the entry after each splice point, whose
// path is stored relative to its predecessor) and hashes the result once.
// At 100k entries that is a few milliseconds where decoding every entry
// into a struct and encoding it back costs hundreds (DESIGN.md, "gitops:
// facts measured").
package index

import (
	"fmt"
	"time"

	"github.com/autocoder/autocoder/step"
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

// Class is refused: an index autocoder cannot keep valid is not touched.
func (e *UnsupportedIndexError) Class() step.Class { return step.ClassRefused }

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

// idxSlot locates one entry. A slot either points into the file's bytes
// (raw: a slot of Index.table) or at an entry given to Update (fresh);
// Index.seq puts them in git's order (slots.go).
type idxSlot struct {
	off     uint32 // raw: offset of the encoded entry in Index.data; fresh: index in Index.fresh
	size    uint32 // raw: encoded length in Index.data
	nameOff uint32 // offset of the path in Index.names (raw) or Index.freshNames (fresh)
	nameLen uint32
	stage   uint8
	fresh   bool
	// walked: a raw slot of a kept scan's walk (keptScan.walk), whose
	// path is in the walk's paths, not Index.names.
	walked bool
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
	// rawVersion is the version data's entries are in: a split index's
	// two files may have two (git writes each in the version its own
	// entries need), and a raw entry is copied only into its own format.
	rawVersion uint32
	data       []byte    // the file as read; never modified
	names      []byte    // where raw slots' paths live: data itself, or in version 4 the expanded paths
	table      slotTable // the entries of data (raw slots), in the file's order
	seq        slotSeq   // the index's entries: runs of table and fresh slots
	exts       []idxExt
	tree       *idxTree // the parsed TREE extension once Update touched it; nil before
	treeBad    bool     // the TREE extension did not parse: it is dropped on write

	fresh      []IndexEntry // entries given to Update
	freshNames []byte

	// hashDone is closed when startHash is done with sum (the SHA-1 of
	// data up to the trailer) and checkpoints.
	hashDone    <-chan struct{}
	sum         []byte
	checkpoints []idxCheckpoint
	// trusted: data is a shared index file a Verifier vouched for; it is
	// not hashed (sum and checkpoints stay nil).
	trusted bool

	// mtime is the index file's own mtime when it was read (or last written
	// by FinishIndex), git's istate->timestamp for racy checks; 0 if there
	// was no file.
	mtimeSec, mtimeNsec uint32
	// rawMtime bounds the mtime of every raw slot that could be racy (see
	// racyRawFree): set by the scan of data, whose entries never change.
	rawMtime uint32

	// The split index (index_split.go). While reading: link is the file's
	// link extension and stripped the number of leading entries without a
	// path (the replacements). After: base is the shared index the slots
	// are split against (data is its bytes), wantSplit whether PrepareIndex
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
