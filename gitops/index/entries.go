package index

// Looking up entries of an Index: by path, by prefix, all of them.

import (
	"bytes"
	"encoding/binary"
	"iter"
	"slices"
	"sort"
)

// Version is the index format version that WriteTo writes: the version the
// file had, or 3 if Update added extended flags to a version-2 index.
func (ix *Index) Version() int { return int(ix.version) }

// Len is the number of entries, counting every stage.
func (ix *Index) Len() int { return ix.seq.n }

// slot returns the slot at position i of the index.
func (ix *Index) slot(i int) idxSlot { return ix.seq.get(&ix.table, i) }

// MTime is the index file's own mtime when it was read (zero if there was no
// file), after FinishIndex that of the file it wrote. Entries whose mtime is
// not older are racily clean: git cannot tell from stat data alone whether
// the file changed in the same second the index was written.
func (ix *Index) MTime() (sec, nsec uint32) { return ix.mtimeSec, ix.mtimeNsec }

func (ix *Index) name(s *idxSlot) []byte {
	switch {
	case s.fresh:
		return ix.freshNames[s.nameOff : s.nameOff+s.nameLen]
	case s.walked:
		return ix.table.kept.wnames[s.nameOff : s.nameOff+s.nameLen]
	}
	return ix.names[s.nameOff : s.nameOff+s.nameLen]
}

// search returns the position of the first entry whose path is not less
// than path.
func (ix *Index) search(path string) int {
	return sort.Search(ix.seq.n, func(i int) bool {
		s := ix.slot(i)
		return string(ix.name(&s)) >= path
	})
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
	if i := ix.search(path); i < ix.seq.n {
		if s := ix.slot(i); s.stage == 0 && string(ix.name(&s)) == path {
			return ix.entry(&s), true
		}
	}
	return IndexEntry{}, false
}

// Stages returns every entry for path in stage order: the stage-0 entry
// alone, or stages 1-3 (some may be missing) of a conflict.
func (ix *Index) Stages(path string) []IndexEntry {
	var out []IndexEntry
	for i := ix.search(path); i < ix.seq.n; i++ {
		s := ix.slot(i)
		if string(ix.name(&s)) != path {
			break
		}
		out = append(out, ix.entry(&s))
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
	for i := ix.search(dir); i < ix.seq.n; i++ {
		s := ix.slot(i)
		n := ix.name(&s)
		if !bytes.HasPrefix(n, []byte(dir)) {
			break
		}
		if len(out) == 0 || out[len(out)-1] != string(n) {
			out = append(out, string(n))
		}
	}
	return out
}

// Files calls each with the name (after dir + "/"), mode and object of
// every entry directly in the folder dir ("" is the top), in index order,
// and reports whether that is all the folder holds: false, perhaps after
// some calls, when an entry under dir lies in a subfolder of it or is not
// at stage 0 (a conflict), and when dir holds no entry. They are the
// entries of the folder's tree where the user staged nothing in it (see
// gitops.Repo.UseFolders). The entries are not decoded whole: a step calls
// it for a folder of hundreds of files.
func (ix *Index) Files(dir string, each func(name string, mode uint32, h [20]byte)) bool {
	if dir != "" {
		dir += "/"
	}
	found := false
	for i := ix.search(dir); i < ix.seq.n; i++ {
		s := ix.slot(i)
		n := ix.name(&s)
		if !bytes.HasPrefix(n, []byte(dir)) {
			break
		}
		if s.stage != 0 || bytes.IndexByte(n[len(dir):], '/') >= 0 {
			return false
		}
		found = true
		if s.fresh {
			e := &ix.fresh[s.off]
			each(e.Path[len(dir):], e.Mode, e.Hash)
			continue
		}
		d := ix.data[s.off:]
		each(string(n[len(dir):]), binary.BigEndian.Uint32(d[24:]), [20]byte(d[40:60]))
	}
	return found
}

// Gitlinks returns the paths (in index order, a path once per stage) of
// the gitlink entries (submodules), without reading every entry: the scan
// of the file listed those of its bytes, and an entry changed since is
// fresh, whose mode is at hand.
func (ix *Index) Gitlinks() []string {
	var at []int
	find := func(name []byte, fresh bool, off uint32) {
		for i := ix.search(string(name)); i < ix.seq.n; i++ {
			s := ix.slot(i)
			if !bytes.Equal(ix.name(&s), name) {
				break
			}
			if s.fresh == fresh && s.off == off {
				at = append(at, i)
			}
		}
	}
	for _, p := range ix.table.gitlinks {
		g := ix.table.at(p)
		find(ix.name(&g), false, g.off)
	}
	for k := range ix.fresh {
		if e := &ix.fresh[k]; e.Mode == idxModeGitlink {
			find([]byte(e.Path), true, uint32(k))
		}
	}
	slices.Sort(at)
	out := make([]string, 0, len(at))
	for _, i := range at {
		s := ix.slot(i)
		out = append(out, string(ix.name(&s)))
	}
	return out
}

// All yields every entry in index order (path, then stage).
func (ix *Index) All() iter.Seq[IndexEntry] {
	return func(yield func(IndexEntry) bool) {
		ix.seq.each(&ix.table, func(_ int, s *idxSlot) bool { return yield(ix.entry(s)) })
	}
}
