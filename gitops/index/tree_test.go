package index

import (
	"slices"
	"testing"
)

// A step parses the cache tree along the paths it changes, and steps over
// the rest: at 1M files the cache tree has some 11,000 nodes, and parsing
// them all was a tenth of a step. git reads what was written (the trees
// of the other directories kept, TestIndexUpdateJudgedByGit).
func TestAStepParsesTheCacheTreeAlongItsPaths(t *testing.T) {
	r := benchRepo(t, 20000, 2)
	lock, ix := lockAndRead(t, r)
	defer lock.Rollback()
	const p = "src/pkg010/sub00/file_10000.go"
	changeEntry(t, ix, p, Stat{})
	var parsed []string
	var walk func(n *idxTree, dir string)
	walk = func(n *idxTree, dir string) {
		if n.subs == nil {
			return
		}
		parsed = append(parsed, dir)
		for _, s := range n.subs {
			walk(s, dir+string(s.name)+"/")
		}
	}
	if ix.tree == nil {
		t.Fatal("no cache tree")
	}
	walk(ix.tree, "")
	// src/pkg010/sub00 holds files only: no subtrees to parse.
	if want := []string{"", "src/", "src/pkg010/"}; !slices.Equal(parsed, want) {
		t.Errorf("cache-tree nodes parsed: %q, want the path's %q", parsed, want)
	}
}
