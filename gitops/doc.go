// Package gitops is everything that knows git's on-disk layout: opening a
// repository (also a linked worktree), blobs and trees, index entries, refs,
// the reflog, git's lock files, autocoder's own folder under .git, and the
// stat data git compares. No other package names a file under .git
// (layout_test.go holds that).
//
// go-git serves as the object store and ref reader only. The write path is
// ours and follows git's own file protocols: every index and ref write takes
// "<file>.lock" with O_EXCL, writes the new content there and renames it over
// the file (lock.go). Start with repo.go (Open), then index_repo.go (the
// repository's index file; the subpackage index reads and writes git's
// index format, also split), objects.go (blobs and trees; packs.go finds
// packed objects on each pack's mapped .idx, packidx.go, instead of
// go-git's decoding of every index, with mmap_unix.go and mmap_other.go)
// and refs.go
// (refname.go checks a branch name). private.go is autocoder's folder
// (<gitdir>/autocoder): the private names of its locks and the one-process
// lock, whose system part is in lock_unix.go and lock_windows.go. stat.go
// tells whether a file changed since it was stated (index.StatOf is git's
// stat data). state.go tells whether a rebase, merge or the like is under
// way. spare.go is the pool of files a session makes between its calls, so
// that a call renames files into place instead of making them.
// The subpackage gitpath is the one test of whether a path is inside .git
// (every spelling git refuses); it links no git library.
package gitops
