package gitops

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Reserve gives f's bytes from off to off+n their disk blocks now, without
// changing its size (fallocate's KEEP_SIZE), so that what is written there
// next is not delayed allocation. ext4 allocates a file's delayed blocks
// and starts writing them back when it is renamed over another file
// (auto_da_alloc, which keeps a "write a temporary file, rename it over"
// from leaving an empty file after a crash): 60-70 µs of each such rename
// on the benchmark machine, against 10-15 µs for this call, or none when
// the blocks were reserved between calls (see Spares.Fill). git's lock
// protocol renames over the index and a ref at every commit.
//
// Only on ext4: btrfs flushes a file renamed over another whatever its
// blocks, and elsewhere (NFS 4.2, where it is a round trip to the server)
// the call would only cost. A failure (no space: the write then fails as
// before) leaves the file as it was.
func Reserve(f *os.File, off, n int64) {
	if n <= 0 {
		return
	}
	fd := int(f.Fd())
	var fs unix.Statfs_t
	if unix.Fstatfs(fd, &fs) == nil && fs.Type == unix.EXT4_SUPER_MAGIC {
		unix.Fallocate(fd, unix.FALLOC_FL_KEEP_SIZE, off, n)
	}
}

// allocated is how many bytes of the file fi describes have blocks: for
// an empty file, those reserved ahead.
func allocated(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return 0
}
