package index

// git's split index (gitformat-index, "Split index"; git's split-index.c):
// the entries live in <gitdir>/sharedindex.<hash>, a full index without
// extensions, and the index file holds only what changed since, with a
// "link" extension: the shared index's hash, then two EWAH bitmaps over the
// shared index's positions, the entries to delete and the entries to
// replace. The file's own entries are first the replacements, in the order
// of their positions and with empty paths (the path is the shared entry's),
// then the new entries, sorted.
//
// Reading merges the two into one Index whose raw slots point into the
// shared index's bytes (Index.data) and whose changed entries are fresh.
// Writing split walks the slots beside the shared index's entries, both in
// git's order: a raw slot at its shared entry's offset is shared, another
// entry with a shared entry's path and stage replaces it, every other shared
// entry is deleted and every other entry is new. A step on a 100k-entry
// repository then writes a few hundred bytes instead of 10 MB.

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/autocoder/autocoder/internal/mapfile"
)

// idxBase is the shared index an Index is split against: its hash. Its
// entries are Index.table, whose slots point into Index.data (the shared
// file's bytes), position for position.
type idxBase struct {
	hash [20]byte
}

// idxLink is a parsed link extension. Its bitmaps are decoded (decode)
// once the shared index is loaded: a position is only meaningful below its
// entry count, and a run of set bits is expanded only that far.
type idxLink struct {
	hash            [20]byte
	bitmaps         []byte // the two EWAH bitmaps as the file holds them
	delete, replace []int  // shared positions, ascending; after decode
}

// DefaultMaxPercentChange is git's splitIndex.maxPercentChange default: a
// new shared index is written when more than this percentage of the
// entries are not in the shared one.
const DefaultMaxPercentChange = 20

// SetSplit chooses how PrepareIndex writes ix: split (a small index file
// linked to a shared index, git's core.splitIndex) or whole.
// maxPercentChange is git's splitIndex.maxPercentChange (0: a new shared
// index at every write, 100: never a new one; out of range: the default).
func (ix *Index) SetSplit(on bool, maxPercentChange int) {
	ix.wantSplit = on
	if maxPercentChange < 0 || maxPercentChange > 100 {
		maxPercentChange = DefaultMaxPercentChange
	}
	ix.maxPercent = maxPercentChange
}

// SetSharedExpire sets git's splitIndex.sharedIndexExpire (ParseExpiry):
// how long a shared index file nobody used is kept before a write of a new
// one removes it.
func (ix *Index) SetSharedExpire(d time.Duration) { ix.sharedExpire = d }

// Split reports whether PrepareIndex writes ix as a split index: the file
// read was one (and nobody called SetSplit since), or SetSplit(true).
func (ix *Index) Split() bool { return ix.wantSplit }

// Linked reports whether ix is split against a shared index file already:
// it was read split, or written split since. A split write of an index
// that is not linked first writes its shared index.
func (ix *Index) Linked() bool { return ix.base != nil }

// parseLink reads the body of a link extension (git's read_link_extension).
func (ix *Index) parseLink(body []byte) error {
	if len(body) < idxHashLen {
		return ix.damaged("link extension too short")
	}
	l := &idxLink{bitmaps: body[idxHashLen:]}
	copy(l.hash[:], body)
	ix.link = l
	return nil
}

// decode reads the link's bitmaps, whose positions are below limit (the
// shared index's entry count). A bitmap of the file is a few bytes for a
// run of any length: a run of set bits reaching past limit is damage,
// never four billion positions in memory.
func (l *idxLink) decode(limit int) error {
	rest := l.bitmaps
	if len(rest) == 0 {
		return nil
	}
	var n int
	var err error
	if l.delete, n, err = ewahRead(rest, limit); err != nil {
		return fmt.Errorf("delete bitmap: %v", err)
	}
	rest = rest[n:]
	if l.replace, n, err = ewahRead(rest, limit); err != nil {
		return fmt.Errorf("replace bitmap: %v", err)
	}
	if n != len(rest) {
		return errors.New("garbage after the bitmaps")
	}
	return nil
}

// sharedPath is the file of the shared index with the given hash, beside
// the index file (git's "%s/sharedindex.%s" of the index's git dir).
func (ix *Index) sharedPath(hash [20]byte) string {
	return filepath.Join(filepath.Dir(ix.path), "sharedindex."+hex.EncodeToString(hash[:]))
}

// sharedIndexes keeps every shared index this process parsed, by path. A
// shared index file is named by its own checksum and never changed in
// place (git and autocoder replace files by rename), so an index read
// again, as a session does after git wrote it, takes the parsed and
// verified shared index as it is: at 100k entries that is 9 MB not read,
// scanned and hashed again. Each file is mapped (mapfile) and kept for
// the life of the process, which sees few of them: git writes a new one
// when a fifth of the entries changed.
var sharedIndexes struct {
	sync.Mutex
	m map[string]sharedIndex
}

// sharedIndex is a parsed shared index and the file it was parsed from.
type sharedIndex struct {
	fi os.FileInfo
	ix *Index
}

// loadShared returns the shared index at path, parsed and verified: from
// sharedIndexes when the file is still the one parsed (same device, inode
// and size), else mapped and parsed now, and hashed unless v vouches for
// it (v may be nil). A missing file is fs.ErrNotExist.
func loadShared(path string, v Verifier) (*Index, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	sharedIndexes.Lock()
	defer sharedIndexes.Unlock()
	// One whose kept scan turned out damaged, and the file with it, is
	// read again: its damage is then the read's error.
	if c, ok := sharedIndexes.m[path]; ok && os.SameFile(c.fi, fi) && c.fi.Size() == fi.Size() && c.ix.table.damaged() == nil {
		return c.ix, nil
	}
	data, release, err := mapfile.Map(path)
	if err != nil {
		return nil, fmt.Errorf("read index %s: %w", path, err)
	}
	st := StatOf(fi)
	fresh := func() *Index {
		return &Index{path: path, data: data, mtimeSec: st.MtimeSec, mtimeNsec: st.MtimeNsec, maxPercent: DefaultMaxPercentChange}
	}
	name := filepath.Base(path)
	var ix *Index
	if v != nil {
		if scan, release := v.Verified(name, fi); scan != nil {
			// Verified before, and walked: neither again. A kept scan
			// that does not fit the file is dropped for a walk.
			ix = fresh()
			ix.trusted = true
			done := make(chan struct{})
			close(done)
			ix.hashDone = done
			// The slots are read from the scan in place, and in version
			// 4 the paths too: it stays mapped with the shared index.
			if ix.parseWith(scan) != nil {
				ix = nil
				release()
			} else if ks := ix.table.kept; ks != nil {
				ks.v, ks.name, ks.fi = v, name, fi
			}
		}
	}
	if ix == nil {
		ix = fresh()
		hashed := ix.startHash()
		hashed <- len(data)
		close(hashed)
		if err := ix.parse(); err != nil {
			<-ix.hashDone // parse may return before the hash is done with the mapping
			release()
			return nil, err
		}
		if v != nil && ix.link == nil && ix.stripped == 0 {
			v.Remember(name, fi, ix.encodeScan())
		}
	}
	if sharedIndexes.m == nil {
		sharedIndexes.m = map[string]sharedIndex{}
	}
	sharedIndexes.m[path] = sharedIndex{fi: fi, ix: ix}
	return ix, nil
}

// mergeShared loads the shared index ix links to and makes ix the whole
// index, as git's merge_base_index does. The shared index is only read:
// other Indexes of this process may use it too (loadShared).
func (ix *Index) mergeShared(v Verifier) error {
	l := ix.link
	ix.link = nil
	if l.hash == ([20]byte{}) {
		// A null link: git stopped splitting, the file is whole.
		if err := l.decode(0); err != nil {
			return ix.damaged("link extension: %v", err)
		}
		if ix.stripped > 0 {
			return ix.damaged("entries without a path in an index that is not split")
		}
		return nil
	}
	spath := ix.sharedPath(l.hash)
	shared, err := loadShared(spath, v)
	if errors.Is(err, fs.ErrNotExist) {
		return &UnsupportedIndexError{Path: ix.path,
			Reason: fmt.Sprintf("split index: its shared index %s is missing", filepath.Base(spath)),
			Fix:    "git cannot read this index either; `git read-tree HEAD` rebuilds it from the last commit (staged changes are lost)"}
	}
	var ue *UnsupportedIndexError
	if errors.As(err, &ue) {
		// Named as the index the caller asked for: that is what git
		// refuses too, and what `git read-tree HEAD` rebuilds.
		return &UnsupportedIndexError{Path: ix.path,
			Reason: fmt.Sprintf("split index: its shared index %s: %s", filepath.Base(spath), ue.Reason), Fix: ue.Fix}
	}
	if err != nil {
		return fmt.Errorf("read index %s: split index: %w", ix.path, err)
	}
	if shared.link != nil || shared.stripped > 0 {
		return ix.damaged("split index: the shared index %s is itself split", filepath.Base(spath))
	}
	if !bytes.Equal(shared.data[len(shared.data)-idxHashLen:], l.hash[:]) {
		return ix.damaged("split index: %s holds another index (checksum mismatch)", filepath.Base(spath))
	}
	nbase := shared.table.len()
	if err := l.decode(nbase); err != nil {
		return ix.damaged("link extension: %v", err)
	}
	if len(l.replace) != ix.stripped {
		return ix.damaged("split index: %d replacements for %d entries without a path", len(l.replace), ix.stripped)
	}
	// Both lists are ascending (ewahRead); a position in both, or past
	// the end, is damage.
	for k, p := range l.delete {
		if p >= nbase || k > 0 && p <= l.delete[k-1] {
			return ix.damaged("split index: deletion of entry %d of %d", p, nbase)
		}
	}
	for k, p := range l.replace {
		if _, gone := slices.BinarySearch(l.delete, p); p >= nbase || gone || k > 0 && p <= l.replace[k-1] {
			return ix.damaged("split index: replacement of entry %d of %d", p, nbase)
		}
	}

	// The merged sequence (slots.go): runs of the shared index's entries
	// between two changes, and the replaced and new entries (fresh), in
	// git's order. Its cost is the number of changes, not of entries.
	small := ix.table.mem // the index file's own entries
	fresh := make([]IndexEntry, 0, len(small))
	freshNames := make([]byte, 0, 64*len(small))
	var kb seqBuilder
	kb.q.segs = make([]seg, 0, 2*len(l.replace)+len(l.delete)+1)
	from, di, ri := 0, 0, 0
	for from < nbase {
		next := nbase
		if di < len(l.delete) {
			next = l.delete[di]
		}
		if ri < len(l.replace) {
			next = min(next, l.replace[ri])
		}
		kb.run(from, next)
		if next == nbase {
			break
		}
		if di < len(l.delete) && l.delete[di] == next {
			di++
		} else {
			// git's replace_entry takes everything but the path from the
			// replacement (the order check below sees a changed stage).
			e := ix.entry(&small[ri])
			b := shared.table.at(next)
			e.Path = string(shared.name(&b))
			kb.slot(addFresh(&fresh, &freshNames, e, false))
			ri++
		}
		from = next + 1
	}
	kept := kb.seq()
	name := func(s *idxSlot) []byte {
		if s.fresh {
			return freshNames[s.nameOff : s.nameOff+s.nameLen]
		}
		return shared.name(s)
	}
	keptAt := func(i int) idxSlot { return kept.get(&shared.table, i) }
	added := small[ix.stripped:]
	out := kept
	if len(added) > 0 {
		var ob seqBuilder
		ki := 0
		for i := range added {
			e := ix.entry(&added[i])
			// Shared entries before it stay: the run of paths less than
			// its own is found by binary search. One of the same path and
			// stage is replaced, and a stage-0 entry replaces the
			// conflict stages of its path (git's add_index_entry).
			j := ki + sort.Search(kept.n-ki, func(j int) bool {
				s := keptAt(ki + j)
				return string(name(&s)) >= e.Path
			})
			ob.copyRange(&kept, ki, j)
			ki = j
			for ki < kept.n {
				k := keptAt(ki)
				c := bytes.Compare(name(&k), []byte(e.Path))
				if c > 0 || c == 0 && e.Stage != 0 && int(k.stage) > e.Stage {
					break
				}
				if c < 0 || e.Stage != 0 && int(k.stage) < e.Stage {
					ob.copyRange(&kept, ki, ki+1)
				}
				ki++
			}
			ob.slot(addFresh(&fresh, &freshNames, e, false))
		}
		ob.copyRange(&kept, ki, kept.n)
		out = ob.seq()
	}
	// The shared entries are in order (scanEntries or decodeScan checked
	// them): only a pair with a fresh entry in it can be out of order, and
	// each fresh entry is a segment of its own.
	var prev idxSlot
	for k := range out.segs {
		g := &out.segs[k]
		first, last := g.own, g.own
		if g.run {
			first, last = shared.table.at(g.a), shared.table.at(g.b-1)
		}
		if k > 0 && (prev.fresh || first.fresh) {
			a, b := name(&prev), name(&first)
			if c := bytes.Compare(a, b); c > 0 || c == 0 && (prev.stage >= first.stage || prev.stage == 0) {
				return ix.damaged("split index: entries out of order at %q", b)
			}
		}
		prev = last
	}

	ix.base = &idxBase{hash: l.hash}
	ix.data, ix.names, ix.table = shared.data, shared.names, shared.table
	// The shared file's entries are in its version, which need not be
	// the small file's: git writes a small file without extended entries
	// as version 2 over a version-3 shared index. Written in version 2,
	// such entries would make a file git and ReadIndexWith refuse.
	ix.rawVersion = shared.version
	if ix.version < 3 && shared.version >= 3 {
		ix.version = 3
	}
	ix.seq, ix.fresh, ix.freshNames = out, fresh, freshNames
	ix.sum, ix.checkpoints = shared.sum, shared.checkpoints
	ix.hashDone = nil
	// The shared index's bound covers the raw slots, a subset of its
	// entries: racyRawFree may answer false where a scan of the subset
	// would not, never true where it would not.
	ix.rawMtime = shared.rawMtime
	ix.stripped = 0
	ix.wantSplit = true
	ix.maxPercent = DefaultMaxPercentChange
	return nil
}

// compareKey orders (path, stage) pairs as git's index does.
func compareKey(a []byte, as uint8, b []byte, bs uint8) int {
	if c := bytes.Compare(a, b); c != 0 {
		return c
	}
	return int(as) - int(bs)
}

// splitDiff compares the slots with the shared index's entries: the shared
// positions to delete, those to replace with their new entries, and the
// entries that are new. Racily clean entries come out smudged, as WriteTo
// writes them.
func (ix *Index) splitDiff() (del, repl []int, replaced, added []IndexEntry) {
	t := &ix.table
	nb := t.len()
	bi := 0
	rawFree := ix.racyRawFree() // then no raw slot is racy: runs are skipped whole
	for k := range ix.seq.segs {
		g := &ix.seq.segs[k]
		if g.run {
			// Raw slots are shared entries (the table is the shared
			// index's): the ones skipped before the run are gone. No
			// path comparison: this is most entries.
			for ; bi < g.a; bi++ {
				del = append(del, bi)
			}
			for bi = g.a; !rawFree && bi < g.b; bi++ {
				if s := t.at(bi); ix.racy(&s) {
					e := ix.entry(&s)
					e.Stat.Size = 0
					repl, replaced = append(repl, bi), append(replaced, e)
				}
			}
			bi = g.b
			continue
		}
		s := &g.own
		name := ix.name(s)
		same := false
		for bi < nb {
			b := t.at(bi)
			c := compareKey(ix.name(&b), b.stage, name, s.stage)
			if c >= 0 {
				same = c == 0
				break
			}
			del = append(del, bi)
			bi++
		}
		e := ix.entry(s)
		if ix.racy(s) {
			e.Stat.Size = 0
		}
		if same {
			repl, replaced = append(repl, bi), append(replaced, e)
			bi++
			continue
		}
		added = append(added, e)
	}
	for ; bi < nb; bi++ {
		del = append(del, bi)
	}
	return del, repl, replaced, added
}

// writeSplit writes ix into lock as a split index: first a new shared
// index when there is none, too much is not shared (git's
// too_many_not_shared_entries) or its file is gone, then the small index.
func (ix *Index) writeSplit(lock LockFile) error {
	if ix.hashDone != nil {
		<-ix.hashDone
	}
	var del, repl []int
	var replaced, added []IndexEntry
	if ix.base != nil {
		del, repl, replaced, added = ix.splitDiff()
	}
	if ix.base == nil || ix.maxPercent == 0 || len(added)*100 > ix.seq.n*ix.maxPercent || !ix.freshenShared() {
		if err := ix.writeShared(); err != nil {
			return err
		}
		del, repl, replaced, added = ix.splitDiff()
	}

	b := make([]byte, 0, 4096)
	b = append(b, "DIRC"...)
	b = binary.BigEndian.AppendUint32(b, ix.version)
	b = binary.BigEndian.AppendUint32(b, uint32(len(replaced)+len(added)))
	var prev []byte
	for k := range replaced {
		e := replaced[k]
		e.Path = "" // git's CE_STRIP_NAME: the shared entry's path stays
		b = idxAppendEntry(b, &e, ix.version, prev)
		prev = nil
	}
	for k := range added {
		b = idxAppendEntry(b, &added[k], ix.version, prev)
		prev = []byte(added[k].Path)
	}
	link := append([]byte(nil), ix.base.hash[:]...)
	link = ewahAppend(link, del)
	link = ewahAppend(link, repl)
	b = idxAppendExt(b, "link", link)
	b = ix.appendExts(b)
	sum := sha1.Sum(b)
	b = append(b, sum[:]...)
	if err := ix.table.damaged(); err != nil {
		return err
	}
	if _, err := lock.Write(b); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	return nil
}

// freshenShared sets the shared index file's mtime to now, as git does
// each time it writes an index that uses it, so that git's expiry
// (splitIndex.sharedIndexExpire) keeps it. False if the file is gone.
func (ix *Index) freshenShared() bool {
	now := time.Now()
	return os.Chtimes(ix.sharedPath(ix.base.hash), now, now) == nil
}

// writeShared writes every entry, without extensions, as a new shared
// index file sharedindex.<its hash> beside the index (git's
// write_shared_index), and makes ix split against it. Old shared index
// files stay: git removes them itself once expired.
func (ix *Index) writeShared() error {
	// Entries whose file changed in the last second (mostly those the
	// caller just wrote) stay out of the shared index, in the small file:
	// in it they would be racily clean for every write in this second,
	// and each such write would look at every entry's mtime (racyRawFree).
	// Unless they are many (a checkout of this second): then all go in.
	recent := uint32(max(time.Now().Unix()-1, 0))
	var leftOut []int // their positions in ix.seq, ascending
	all := ix.seq
	all.each(&ix.table, func(i int, s *idxSlot) bool {
		if mtime, ok := ix.racyMtime(s); ok && mtime >= recent {
			leftOut = append(leftOut, i)
		}
		return true
	})
	if len(leftOut)*100 > all.n {
		leftOut = nil
	}
	if len(leftOut) > 0 {
		var shared0 seqBuilder
		from := 0
		for _, i := range leftOut {
			shared0.copyRange(&all, from, i)
			from = i + 1
		}
		shared0.copyRange(&all, from, all.n)
		ix.seq = shared0.seq()
	}
	var buf bytes.Buffer
	buf.Grow(len(ix.data) + len(ix.fresh)*80 + 64)
	_, err := ix.encode(&buf, false)
	ix.seq = all
	if err != nil {
		return err
	}
	data := buf.Bytes()
	var hash [20]byte
	copy(hash[:], data[len(data)-idxHashLen:])
	dir := filepath.Dir(ix.path)
	f, err := os.CreateTemp(dir, "sharedindex_*")
	if err != nil {
		return fmt.Errorf("write shared index: %w", err)
	}
	tmp := f.Name()
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(ix.path); err == nil {
		mode = fi.Mode().Perm()
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, ix.sharedPath(hash))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write shared index: %w", err)
	}
	// The shared index the index file links to until this write commits
	// stays whatever its age: git freshens it when it reads the index,
	// and a write that fails after this point leaves that link in place.
	keep := [][20]byte{hash}
	if ix.base != nil {
		keep = append(keep, ix.base.hash)
	}
	ix.expireShared(keep)
	// The new file's entries become ix's raw slots, one for one (the
	// order is the same), keeping which ones the caller vouched for.
	shared := &Index{path: ix.path, version: ix.version, data: data}
	if err := shared.scanEntries(len(data) - idxHashLen); err != nil {
		return fmt.Errorf("write shared index: %w", err)
	}
	if want := ix.seq.n - len(leftOut); shared.table.len() != want {
		return fmt.Errorf("write shared index: %d entries written, %d read back", want, shared.table.len())
	}
	// The entries left out stay fresh, in their places among the new
	// raw slots, with whether the caller vouched for them.
	var seq seqBuilder
	var fresh []IndexEntry
	var freshNames []byte
	j := 0
	ix.seq.each(&ix.table, func(i int, s *idxSlot) bool {
		if len(leftOut) > 0 && leftOut[0] == i {
			leftOut = leftOut[1:]
			seq.slot(addFresh(&fresh, &freshNames, ix.entry(s), s.given))
			return true
		}
		if s.given {
			shared.table.mem[j].given, shared.table.given = true, true
		}
		seq.run(j, j+1)
		j++
		return true
	})
	ix.base = &idxBase{hash: hash}
	ix.data, ix.names, ix.table = data, shared.names, shared.table
	ix.rawVersion = ix.version
	ix.seq = seq.seq()
	ix.rawMtime = shared.rawMtime
	ix.fresh, ix.freshNames = fresh, freshNames
	ix.sum, ix.checkpoints, ix.hashDone = nil, nil, nil
	return nil
}

// expireShared removes the shared index files other than those in keep
// that nobody used for splitIndex.sharedIndexExpire (git's
// clean_shared_index_files, which git runs when it writes a new shared
// index, as here). Every write that uses a shared index touches it, so an
// old mtime means that no index has linked to it for that long.
func (ix *Index) expireShared(keep [][20]byte) {
	if ix.sharedExpire < 0 {
		return
	}
	age := ix.sharedExpire
	if age == 0 {
		age = DefaultSharedIndexExpire
	}
	cutoff := time.Now().Add(-age)
	kept := map[string]bool{}
	for _, h := range keep {
		kept["sharedindex."+hex.EncodeToString(h[:])] = true
	}
	dir := filepath.Dir(ix.path)
	names, err := filepath.Glob(filepath.Join(dir, "sharedindex.*"))
	if err != nil {
		return
	}
	for _, p := range names {
		if kept[filepath.Base(p)] {
			continue
		}
		if fi, err := os.Stat(p); err == nil && !fi.ModTime().After(cutoff) {
			os.Remove(p) // as git: a failure leaves a file, never a broken index
		}
	}
}

// DefaultSharedIndexExpire is git's splitIndex.sharedIndexExpire default,
// "2.weeks.ago".
const DefaultSharedIndexExpire = 14 * 24 * time.Hour

// ParseExpiry reads a git expiry date of the forms git's
// splitIndex.sharedIndexExpire takes in practice: "never" or "false"
// (never: -1), "now" (1ns) and "<n>.<unit>s.ago". Anything else is
// never, which keeps files rather than removing them on a guess.
func ParseExpiry(v string) time.Duration {
	v = strings.ToLower(strings.TrimSpace(v))
	switch v {
	case "":
		return 0
	case "now", "all":
		return time.Nanosecond
	}
	f := strings.Split(v, ".")
	if len(f) != 3 || f[2] != "ago" {
		return -1
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n < 0 {
		return -1
	}
	units := map[string]time.Duration{"second": time.Second, "minute": time.Minute, "hour": time.Hour,
		"day": 24 * time.Hour, "week": 7 * 24 * time.Hour, "month": 30 * 24 * time.Hour, "year": 365 * 24 * time.Hour}
	u, ok := units[strings.TrimSuffix(f[1], "s")]
	if !ok {
		return -1
	}
	return max(time.Duration(n)*u, time.Nanosecond)
}

// idxAppendExt appends an extension: signature, length, body.
func idxAppendExt(b []byte, sig string, body []byte) []byte {
	b = append(b, sig...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(body)))
	return append(b, body...)
}

// EWAH, git's compressed bitmap (ewah/ewah_io.c, ewah_bitmap.c): the bit
// count (32 bits), the number of 64-bit words, the words, and the position
// of the last marker word, all big-endian. The words are runs: a marker
// word holds the run's bit (bit 0), the number of words of that bit (bits
// 1-32) and the number of literal words that follow it (bits 33-63); bit i
// of a literal word is bit i of its 64.

const (
	ewahRunBits     = 32
	ewahMaxRun      = 1<<ewahRunBits - 1
	ewahMaxLiterals = 1<<(63-ewahRunBits) - 1
)

// ewahRead decodes a bitmap at the start of b into the positions of its
// set bits, ascending, and says how many bytes it took. A run of set bits
// reaching past limit is an error.
func ewahRead(b []byte, limit int) (pos []int, n int, err error) {
	// The counts (8 bytes) and the last marker's position (4) at least:
	// (len(b)-12)/8 below is 0, not negative, for 8 to 11 bytes.
	if len(b) < 12 {
		return nil, 0, errors.New("truncated header")
	}
	bits := int(binary.BigEndian.Uint32(b))
	words := int(binary.BigEndian.Uint32(b[4:]))
	if words > (len(b)-12)/8 {
		return nil, 0, errors.New("truncated words")
	}
	n = 8 + 8*words + 4
	w := func(i int) uint64 { return binary.BigEndian.Uint64(b[8+8*i:]) }
	at := 0
	for i := 0; i < words; {
		rlw := w(i)
		i++
		run := int(rlw >> 1 & ewahMaxRun)
		if rlw&1 != 0 {
			if at+run*64 > bits+64 || at+run*64 > limit+64 {
				return nil, 0, errors.New("a run of set bits past the end")
			}
			for k := range run * 64 {
				pos = append(pos, at+k)
			}
		}
		at += run * 64
		lits := int(rlw >> (1 + ewahRunBits))
		if lits > words-i {
			return nil, 0, errors.New("literal words past the end")
		}
		for ; lits > 0; lits-- {
			for v, k := w(i), 0; v != 0; v, k = v>>1, k+1 {
				if v&1 != 0 {
					pos = append(pos, at+k)
				}
			}
			at += 64
			i++
		}
	}
	return pos, n, nil
}

// ewahAppend encodes the ascending positions pos as a bitmap: runs of
// zero words and literal words, as git's ewah_set builds it.
func ewahAppend(b []byte, pos []int) []byte {
	var lit []uint64 // the dense words
	bits := 0
	if len(pos) > 0 {
		bits = pos[len(pos)-1] + 1
		lit = make([]uint64, (bits+63)/64)
		for _, p := range pos {
			lit[p/64] |= 1 << (p % 64)
		}
	}
	var words []uint64
	last := 0
	for i := 0; i < len(lit) || len(words) == 0; {
		run := 0
		for i < len(lit) && lit[i] == 0 && run < ewahMaxRun {
			run++
			i++
		}
		n := 0
		for i+n < len(lit) && lit[i+n] != 0 && n < ewahMaxLiterals {
			n++
		}
		last = len(words)
		words = append(words, uint64(run)<<1|uint64(n)<<(1+ewahRunBits))
		words = append(words, lit[i:i+n]...)
		i += n
	}
	b = binary.BigEndian.AppendUint32(b, uint32(bits))
	b = binary.BigEndian.AppendUint32(b, uint32(len(words)))
	for _, w := range words {
		b = binary.BigEndian.AppendUint64(b, w)
	}
	return binary.BigEndian.AppendUint32(b, uint32(last))
}
