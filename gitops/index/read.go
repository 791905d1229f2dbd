package index

// Reading the index: ReadIndexWith parses the file into slots and verifies its
// checksum in the background (index.go has the format).

import (
	"bytes"
	"crypto/sha1"
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Verifier remembers the shared index files whose checksum was verified,
// across processes, with their scan (scan.go). A shared index is named by
// its checksum and never changed in place, so the file verified once (the
// same device, inode and size) need not be hashed or walked again: at 100k
// entries that is 9 MB of SHA-1 and of entries in every autocoder process,
// at 1M 90 MB. git verifies no index checksum outside fsck; autocoder
// verifies each shared index file once.
type Verifier interface {
	// Verified returns the scan kept with the shared index file fi, named
	// name, when it was verified before; nil if not. release lets go of
	// the bytes once the scan is read.
	Verified(name string, fi os.FileInfo) (scan []byte, release func())
	// Remember keeps scan as the scan of the file just verified.
	Remember(name string, fi os.FileInfo, scan []byte)
	// Forget drops what is kept of the file named name: it was found
	// damaged since, and is to be verified again at the next read.
	Forget(name string)
}

// ReadIndexWith reads path (normally <gitdir>/index). A missing file is an empty
// version-2 index. A split index (extension "link") is read with its shared
// index and written back split (see SetSplit). It refuses, with
// *UnsupportedIndexError, a version other than 2, 3 and 4, the sparse index
// ("sdir"), any other extension git marks as required (signature starting
// with a lower-case letter), and a file whose checksum does not match.
//
// To write the index back, take its lock (gitops.Lock) before calling ReadIndexWith so that
// no git command changes the file in between.
//
// A shared index is verified once (see Verifier); v nil verifies it at
// every read.
func ReadIndexWith(path string, v Verifier) (*Index, error) {
	ix, err := readIndexFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Index{path: path, version: 2, maxPercent: DefaultMaxPercentChange}, nil
	}
	if err != nil {
		return nil, err
	}
	if ix.link != nil {
		if err := ix.mergeShared(v); err != nil {
			return nil, err
		}
	}
	return ix, nil
}

// readIndexFile reads one index file, leaving a link extension unresolved.
func readIndexFile(path string) (*Index, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
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
	ix := &Index{path: path, data: make([]byte, fi.Size()), mtimeSec: st.MtimeSec, mtimeNsec: st.MtimeNsec, maxPercent: DefaultMaxPercentChange}
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
	if ix.stripped > 0 && ix.link == nil {
		return nil, ix.damaged("entry 1 has an empty path")
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

// damaged is the error for a file that is not a valid index.
func (ix *Index) damaged(format string, args ...any) error {
	return &UnsupportedIndexError{
		Path:   ix.path,
		Reason: "damaged index: " + fmt.Sprintf(format, args...),
		Fix:    "check with `git status`; if git also rejects the index, `git read-tree HEAD` rebuilds it from the last commit (staged changes are lost)",
	}
}

func (ix *Index) parse() error { return ix.parseWith(nil) }

// parseWith parses the file, its entries from scan, a kept scan of it
// (scan.go), when scan is not nil.
func (ix *Index) parseWith(scan []byte) error {
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
	var err error
	if scan != nil {
		var pos int
		if pos, err = ix.decodeScan(scan, end); err == nil {
			err = ix.scanExtensions(pos, end)
		}
	} else {
		err = ix.scanEntries(end)
	}
	<-ix.hashDone
	if err != nil {
		return err
	}
	if !ix.trusted && !bytes.Equal(d[end:], make([]byte, idxHashLen)) && !bytes.Equal(ix.sum, d[end:]) {
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
	ix.table = slotTable{mem: make([]idxSlot, count)}
	ix.seq = wholeSeq(int(count))
	ix.names = d
	v4 := ix.version == 4
	if v4 {
		ix.names = make([]byte, 0, len(d)/2)
	}
	pos := idxHeaderLen
	var prev []byte
	for i := range ix.table.mem {
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
		s := &ix.table.mem[i]
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
		// What later questions would otherwise scan every entry for,
		// read here from the entry the scan is on: the gitlinks (few),
		// and the newest mtime an entry could be racy with.
		mode, mtime, size := ix.rawRacyFields(s)
		if mode == idxModeGitlink {
			ix.table.gitlinks = append(ix.table.gitlinks, i)
		} else if size != 0 && mtime > ix.rawMtime {
			ix.rawMtime = mtime
		}
		if len(name) == 0 {
			// A split index's replacements come first, without paths.
			if i != ix.stripped {
				return ix.damaged("entry %d at byte %d has an empty path", i+1, pos)
			}
			ix.stripped++
			prev = name
			continue
		}
		if i > ix.stripped {
			c := bytes.Compare(prev, name)
			if p := &ix.table.mem[i-1]; c > 0 || c == 0 && (p.stage >= s.stage || p.stage == 0) {
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
			// The split index: index_split.go merges the shared index.
			if err := ix.parseLink(body); err != nil {
				return err
			}
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
