package index

// The cache tree (TREE extension): parsed only when Update touches it,
// invalidated along changed paths, written back.

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
)

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
