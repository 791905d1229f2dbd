// Package gitops is everything that touches .git: opening a repository
// (also a linked worktree), blobs and trees, index entries, refs, the reflog
// and git's lock files.
//
// go-git serves as the object store and ref reader only. The write path is
// ours and follows git's own file protocols: every index and ref write takes
// "<file>.lock" with O_EXCL, writes the new content there and renames it over
// the file (lock.go). Start with repo.go (Open), then index.go (the index,
// split by job into index_read.go, index_entries.go, index_update.go,
// index_tree.go and index_write.go), objects.go (blobs and trees) and
// refs.go. state.go tells whether a rebase, merge or the like is under way.
// The subpackage gitpath is the one test of whether a path is inside .git
// (every spelling git refuses); it links no git library.
package gitops
