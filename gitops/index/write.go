package index

// Writing the index: WriteTo copies the untouched runs of the file read,
// encodes only new entries, hashes once; PrepareIndex writes it under the
// lock, FinishIndex puts it in place.

import (
	"bytes"
	"crypto/sha1"
	"encoding"
	"encoding/binary"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
)

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

// racy reports whether git could take the entry in s for clean while its
// file changed: its mtime is not older than the index file's. git's
// is_racy_timestamp compares nanoseconds only when git was built with
// USE_NSEC, which is not the default; comparing seconds smudges a superset
// of what either build considers racy, so it is right for both.
func (ix *Index) racy(s *idxSlot) bool {
	if s.given || ix.mtimeSec == 0 {
		return false
	}
	if !s.fresh && ix.racyRawFree() {
		return false
	}
	mtime, ok := ix.racyMtime(s)
	return ok && ix.mtimeSec <= mtime
}

// racyMtime is the mtime of the entry in s, and whether it can be racy at
// all: a gitlink never is (git does not stat into it), nor an entry
// smudged already (size 0).
func (ix *Index) racyMtime(s *idxSlot) (uint32, bool) {
	var mode, mtime, size uint32
	if s.fresh {
		e := &ix.fresh[s.off]
		mode, mtime, size = e.Mode, e.Stat.MtimeSec, e.Stat.Size
	} else {
		mode, mtime, size = ix.rawRacyFields(s)
	}
	return mtime, mode != idxModeGitlink && size != 0
}

func (ix *Index) rawRacyFields(s *idxSlot) (mode, mtime, size uint32) {
	d := ix.data[s.off:]
	return binary.BigEndian.Uint32(d[24:]), binary.BigEndian.Uint32(d[8:]), binary.BigEndian.Uint32(d[36:])
}

// racyRawFree reports that no raw slot is racy: each is older than the
// index file. A session writes the index at every call, and without this
// each write looked at the stat data of all 100k entries twice (the split
// diff, settleRacy), 1-2 ms; the bound is taken by the scan of data
// (scanEntries, or its kept scan), whose raw slots are the only ones.
func (ix *Index) racyRawFree() bool { return ix.rawMtime < ix.mtimeSec }

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
//
// WriteTo always writes the whole index, also for a split one (see
// PrepareIndex).
func (ix *Index) WriteTo(w io.Writer) (int64, error) { return ix.encode(w, true) }

// encode writes the whole index, with its extensions or (for a shared
// index) without.
func (ix *Index) encode(w io.Writer, withExts bool) (int64, error) {
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
	binary.BigEndian.PutUint32(hdr[8:], uint32(ix.seq.n))
	iw.write(hdr[:])

	v4 := ix.version == 4
	scratch := make([]byte, 0, 4096)
	runStart, runEnd := 0, 0 // a run of raw entries to copy as one block
	prevEnd := uint32(idxHeaderLen)
	var prevName []byte
	ix.seq.each(&ix.table, func(_ int, s *idxSlot) bool {
		name := ix.name(s)
		// A raw entry is copied as it is unless it must be smudged, is in
		// another version's format (a split index's shared file) or, in
		// version 4, it follows a different entry than in the file.
		copyRaw := !s.fresh && (ix.rawVersion == 4) == v4 && (!v4 || s.off == prevEnd)
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
		return true
	})
	iw.raw(runStart, runEnd)
	if err := ix.table.damaged(); err != nil {
		iw.w.close()
		return iw.n, err
	}

	if withExts {
		iw.write(ix.appendExts(nil))
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

// appendExts appends the extensions kept, the cache tree as updated.
func (ix *Index) appendExts(b []byte) []byte {
	for _, x := range ix.exts {
		body := x.data
		if x.sig == "TREE" && ix.treeBad {
			continue
		}
		if x.sig == "TREE" && ix.tree != nil {
			body = ix.tree.appendTo(nil)
		}
		b = idxAppendExt(b, x.sig, body)
	}
	return b
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

// LockFile is git's lock-file protocol on the index file, as gitops.Lock
// takes it: "<index>.lock" created exclusively, written, then renamed over
// the index (Commit) or removed (Rollback).
type LockFile interface {
	io.Writer
	Path() string // the file locked, not the lock
	Commit() error
	Rollback()
}

// An index is written in two halves: PrepareIndex encodes ix into lock,
// FinishIndex commits the lock, replacing the index file in one rename.
// Between them the lock stays held and the index file unchanged, as git
// commit holds the index it wrote until the branch has moved; the caller
// may roll the lock back instead. ix must have been read from lock.Path()
// while holding lock (the caller takes gitops.Lock(<gitdir>/index) before
// ReadIndexWith), so that no other writer's change is lost. On failure of
// either half the lock is rolled back and the index file is unchanged.
//
// A split index (see SetSplit) is written as git writes one: the entries
// that differ from the shared index into the index file with a link
// extension, and first, when too many differ, a new shared index.
//
// After FinishIndex ix describes the new file: racy checks of a later
// write compare with its mtime, the entries smudged are smudged in ix too,
// and the entries given to Update are no longer exempt.

// PrepareIndex is the first half of an index write (see above): it
// encodes ix into lock, which stays held. On failure the lock is rolled
// back.
func PrepareIndex(lock LockFile, ix *Index) error {
	if filepath.Clean(lock.Path()) != filepath.Clean(ix.path) {
		lock.Rollback()
		return fmt.Errorf("write index: the lock is on %s but the index was read from %s", lock.Path(), ix.path)
	}
	var err error
	if ix.wantSplit {
		err = ix.writeSplit(lock)
	} else {
		_, err = ix.WriteTo(lock)
	}
	if err != nil {
		lock.Rollback()
		return err
	}
	return nil
}

// FinishIndex is the second half of an index write (see above): it renames
// the index that PrepareIndex wrote into lock over the index file.
func FinishIndex(lock LockFile, ix *Index) error {
	if err := lock.Commit(); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	ix.settleRacy()
	// Without the new mtime (stat failed) keep comparing with the old
	// one: it is older, so that smudges more, never less.
	if fi, err := os.Stat(ix.path); err == nil {
		st := StatOf(fi)
		ix.mtimeSec, ix.mtimeNsec = st.MtimeSec, st.MtimeNsec
	}
	for k := range ix.seq.segs {
		ix.seq.segs[k].own.given = false
	}
	if ix.table.given {
		for i := range ix.table.mem {
			ix.table.mem[i].given = false
		}
		ix.table.given = false
	}
	return nil
}

// settleRacy makes the entries just written smudged (see WriteTo) smudged
// in ix too. Left as read, a later write, comparing with the newer mtime of
// the file written now, would no longer find them racy and would write
// their stat data back: git would then take a file changed in the second of
// the earlier write for clean.
func (ix *Index) settleRacy() {
	smudged := func(s *idxSlot) IndexEntry {
		e := ix.entry(s)
		e.Stat.Size = 0
		return e
	}
	// Fresh slots are smudged in place: each is a segment of its own.
	for k := range ix.seq.segs {
		if g := &ix.seq.segs[k]; !g.run && ix.racy(&g.own) {
			ix.fresh[g.own.off] = smudged(&g.own)
		}
	}
	if ix.racyRawFree() {
		return // and no raw slot is racy
	}
	// A racy raw slot becomes a fresh one, splitting its run.
	var out seqBuilder
	for k := range ix.seq.segs {
		g := &ix.seq.segs[k]
		if !g.run {
			out.slot(g.own)
			continue
		}
		for p := g.a; p < g.b; p++ {
			if s := ix.table.at(p); ix.racy(&s) {
				out.slot(addFresh(&ix.fresh, &ix.freshNames, smudged(&s), s.given))
			} else {
				out.run(p, p+1)
			}
		}
	}
	ix.seq = out.seq()
}
