package index

// Changing entries in memory: Update splices slots and invalidates the
// cache tree along every touched path.

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/autocoder/autocoder/gitops/gitpath"
)

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
		// git's verify_path, as add_index_entry applies it: the index is
		// the last place a .git spelling could slip into a commit.
		if err := gitpath.Verify(e.Path, e.Mode == 0o120000); err != nil {
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
		for ; hi < ix.seq.n; hi++ {
			if s := ix.slot(hi); string(ix.name(&s)) != name {
				break
			}
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
		for ; hi < ix.seq.n; hi++ {
			s := ix.slot(hi)
			n := ix.name(&s)
			if !bytes.HasPrefix(n, []byte(e.Path+"/")) {
				break
			}
			touched = append(touched, string(n))
		}
		if hi > lo {
			del = append(del, [2]int{lo, hi})
		}
		ins[k] = ix.search(e.Path)
		touched = append(touched, e.Path)
	}
	slices.SortFunc(del, func(a, b [2]int) int { return a[0] - b[0] })

	var merged [][2]int
	for _, r := range del {
		if n := len(merged); n > 0 && r[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	newSlot := func(e *IndexEntry) idxSlot {
		if e.SkipWorktree || e.IntentToAdd {
			ix.version = max(ix.version, 3) // version 2 has no extended flags
		}
		return addFresh(&ix.fresh, &ix.freshNames, *e, true)
	}

	// The new sequence: the old one's positions that no range deletes,
	// copied as runs (slots.go), with the new entries in their places.
	var out seqBuilder
	pos, di := 0, 0
	// keep appends the positions in [pos, to) that no range deletes.
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
			out.copyRange(&ix.seq, pos, next)
			pos = next
		}
	}
	for k := range set {
		keep(ins[k])
		out.slot(newSlot(&set[k]))
	}
	keep(ix.seq.n)
	ix.seq = out.seq()

	if len(touched) > 0 {
		ix.invalidateTree(touched)
	}
	return nil
}
