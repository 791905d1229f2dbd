package index

// The scan of a shared index, kept: what scanEntries learns of a shared
// index file (every entry's offset, length and path, its gitlinks, its
// racy bound) written down once, so that a later process takes it from a
// file of a few bytes per entry instead of walking the 9 MB (100k entries)
// or 90 MB (1M) shared index again. A Verifier keeps it with the record
// that the file's checksum was verified: both hold for that file only.

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"slices"
)

// scanMagic starts a kept scan; the digit is the layout's version.
const scanMagic = "ACSCAN1\n"

// scanSlotLen is one slot in a kept scan: offset, length, path offset and
// path length (32 bits each, little-endian), the stage.
const scanSlotLen = 17

// encodeScan writes down ix's scan: ix is a shared index as scanEntries
// left it (raw slots only, no stripped entries).
func (ix *Index) encodeScan() []byte {
	v4Names := 0
	if ix.version == 4 {
		v4Names = len(ix.names)
	}
	b := make([]byte, 0, len(scanMagic)+16+(len(ix.slots)+len(ix.rawGitlinks))*scanSlotLen+v4Names)
	b = append(b, scanMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ix.slots)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ix.rawGitlinks)))
	b = binary.LittleEndian.AppendUint32(b, ix.rawMtime)
	b = binary.LittleEndian.AppendUint32(b, uint32(v4Names))
	put := func(s *idxSlot) {
		b = binary.LittleEndian.AppendUint32(b, s.off)
		b = binary.LittleEndian.AppendUint32(b, s.size)
		b = binary.LittleEndian.AppendUint32(b, s.nameOff)
		b = binary.LittleEndian.AppendUint32(b, s.nameLen)
		b = append(b, s.stage)
	}
	for i := range ix.slots {
		put(&ix.slots[i])
	}
	for i := range ix.rawGitlinks {
		put(&ix.rawGitlinks[i])
	}
	if ix.version == 4 {
		b = append(b, ix.names...)
	}
	return b
}

var errScan = errors.New("kept scan does not fit the file")

// decodeScan fills ix's slots, gitlinks and racy bound from a kept scan of
// ix.data, checking that every slot lies within the entries, one after the
// other, with its path inside it (or inside the kept paths, in version 4):
// a damaged scan is an error, never a slice out of range. It returns where
// the entries end.
func (ix *Index) decodeScan(b []byte, end int) (int, error) {
	if len(b) < len(scanMagic)+16 || string(b[:len(scanMagic)]) != scanMagic {
		return 0, errScan
	}
	b = b[len(scanMagic):]
	n := int(binary.LittleEndian.Uint32(b))
	ngit := int(binary.LittleEndian.Uint32(b[4:]))
	ix.rawMtime = binary.LittleEndian.Uint32(b[8:])
	nnames := int(binary.LittleEndian.Uint32(b[12:]))
	b = b[16:]
	if n != int(binary.BigEndian.Uint32(ix.data[8:])) || len(b) != (n+ngit)*scanSlotLen+nnames || (ix.version == 4) != (nnames > 0 || n == 0) {
		return 0, errScan
	}
	ix.names = ix.data
	if ix.version == 4 {
		ix.names = b[(n+ngit)*scanSlotLen:]
	}
	get := func(k int) idxSlot {
		p := b[k*scanSlotLen : k*scanSlotLen+scanSlotLen]
		return idxSlot{off: binary.LittleEndian.Uint32(p), size: binary.LittleEndian.Uint32(p[4:]),
			nameOff: binary.LittleEndian.Uint32(p[8:]), nameLen: binary.LittleEndian.Uint32(p[12:]), stage: p[16]}
	}
	ix.slots = make([]idxSlot, n)
	pos, names, v4 := uint64(idxHeaderLen), uint64(len(ix.names)), ix.version == 4
	for k := range ix.slots {
		s := get(k)
		nameEnd := uint64(s.nameOff) + uint64(s.nameLen)
		if uint64(s.off) != pos || s.size < idxEntryFixed || pos+uint64(s.size) > uint64(end) || s.stage > 3 || s.nameLen == 0 || nameEnd > names ||
			!v4 && (uint64(s.nameOff) < pos+idxEntryFixed || nameEnd > pos+uint64(s.size)) {
			return 0, errScan
		}
		if v4 && k > 0 {
			// Version 4's paths are the scan's own bytes, and a write
			// re-encodes an entry after a splice from them: paths out
			// of git's order would be written so, an index git
			// rejects. Checking them reads the scan only; versions 2
			// and 3 copy every unchanged entry from the file as it is.
			p := &ix.slots[k-1]
			c := bytes.Compare(ix.names[p.nameOff:p.nameOff+p.nameLen], ix.names[s.nameOff:nameEnd])
			if c > 0 || c == 0 && (p.stage >= s.stage || p.stage == 0) {
				return 0, errScan
			}
		}
		ix.slots[k] = s
		pos += uint64(s.size)
	}
	ix.rawGitlinks = make([]idxSlot, ngit)
	for k := range ix.rawGitlinks {
		g := get(n + k)
		i, ok := slices.BinarySearchFunc(ix.slots, g.off, func(s idxSlot, off uint32) int { return cmp.Compare(s.off, off) })
		if !ok || ix.slots[i] != g {
			return 0, errScan
		}
		ix.rawGitlinks[k] = g
	}
	return int(pos), nil
}
