//go:build windows

package index

import (
	"os"
	"syscall"
)

// StatOf returns the stat data git for Windows records for a file: its
// lstat (compat/mingw.c) fills ctime from the creation time, mtime from the
// last write time and the size, and leaves device, inode, uid and gid 0,
// so those are all git compares there. Each field is truncated to 32 bits
// like git's fill_stat_data.
func StatOf(fi os.FileInfo) Stat {
	d, ok := fi.Sys().(*syscall.Win32FileAttributeData)
	if !ok {
		return statFallback(fi)
	}
	c := d.CreationTime.Nanoseconds()
	m := d.LastWriteTime.Nanoseconds()
	return Stat{
		CtimeSec: uint32(c / 1e9), CtimeNsec: uint32(c % 1e9),
		MtimeSec: uint32(m / 1e9), MtimeNsec: uint32(m % 1e9),
		Size: uint32(fi.Size()),
	}
}
