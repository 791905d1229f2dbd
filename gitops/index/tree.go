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
	subs  []*idxTree // parsed from body by expand
	raw   []byte     // the node and its subtrees exactly as read, while !dirty
	body  []byte     // its subtrees as read
	nsub  int
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

// idxParseTree parses one node, "<name> NUL <count> SP <subtrees> LF
// [<hash>]" followed by its subtrees. The subtrees are only stepped over
// (idxSkipTree) and parsed when a change reaches them (expand): at 1M
// files the cache tree has some 11,000 nodes, and a step changes a few.
func idxParseTree(b []byte) (*idxTree, []byte, bool) {
	t, body, nsub, ok := idxTreeHeader(b)
	if !ok {
		return nil, nil, false
	}
	rest := body
	for range nsub {
		if rest, ok = idxSkipTree(rest); !ok {
			return nil, nil, false
		}
	}
	t.raw = b[:len(b)-len(rest)]
	t.body, t.nsub = body[:len(body)-len(rest)], nsub
	return t, rest, true
}

// idxTreeHeader parses a node's header: its name, count and hash, the
// bytes after it (its subtrees, then what follows) and how many subtrees
// it has.
func idxTreeHeader(b []byte) (t *idxTree, rest []byte, nsub int, ok bool) {
	nul := bytes.IndexByte(b, 0)
	if nul < 0 {
		return nil, nil, 0, false
	}
	t = &idxTree{name: b[:nul]}
	count, b, ok := idxTreeInt(b[nul+1:], ' ')
	if !ok {
		return nil, nil, 0, false
	}
	nsub, b, ok = idxTreeInt(b, '\n')
	if !ok || count < -1 || nsub < 0 || nsub > len(b) {
		return nil, nil, 0, false
	}
	t.count = count
	if count >= 0 {
		if len(b) < idxHashLen {
			return nil, nil, 0, false
		}
		copy(t.hash[:], b)
		b = b[idxHashLen:]
	}
	return t, b, nsub, true
}

// idxTreeInt reads a decimal number (a leading '-' allowed) ending at the
// byte end, without allocating: the skip of every node uses it.
func idxTreeInt(b []byte, end byte) (int, []byte, bool) {
	neg := len(b) > 0 && b[0] == '-'
	i := 0
	if neg {
		i = 1
	}
	v, digits := 0, 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if v > (1<<31)/10 {
			return 0, nil, false
		}
		v = v*10 + int(b[i]-'0')
		digits++
	}
	if digits == 0 || i >= len(b) || b[i] != end {
		return 0, nil, false
	}
	if neg {
		v = -v
	}
	return v, b[i+1:], true
}

// idxSkipTree steps over one node and its subtrees without keeping them.
func idxSkipTree(b []byte) ([]byte, bool) {
	nul := bytes.IndexByte(b, 0)
	if nul < 0 {
		return nil, false
	}
	count, b, ok := idxTreeInt(b[nul+1:], ' ')
	if !ok {
		return nil, false
	}
	nsub, b, ok := idxTreeInt(b, '\n')
	if !ok || count < -1 || nsub < 0 || nsub > len(b) {
		return nil, false
	}
	if count >= 0 {
		if len(b) < idxHashLen {
			return nil, false
		}
		b = b[idxHashLen:]
	}
	for range nsub {
		if b, ok = idxSkipTree(b); !ok {
			return nil, false
		}
	}
	return b, true
}

// expand parses the subtrees of a node parsed by idxParseTree, once.
func (t *idxTree) expand() {
	if t.subs != nil || t.nsub == 0 {
		return
	}
	t.subs = make([]*idxTree, 0, t.nsub)
	for b := t.body; len(t.subs) < t.nsub; {
		sub, rest, ok := idxParseTree(b)
		if !ok { // idxParseTree stepped over these bytes already
			panic("index: cache tree changed after it was parsed")
		}
		t.subs, b = append(t.subs, sub), rest
	}
}

// invalidate marks every node from the root to path as changed, the way
// git's cache_tree_invalidate_path does: those nodes lose their tree (count
// -1) but keep their subtrees, which stay valid; a subtree named like path
// itself is removed, since path is now a file or gone.
func (t *idxTree) invalidate(path string) {
	for {
		t.expand()
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
