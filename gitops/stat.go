package gitops

import "os"

// statFallback is the stat data that os.FileInfo alone carries: mtime and
// size (ctime is taken to be the mtime; device, inode and owner stay 0).
func statFallback(fi os.FileInfo) Stat {
	t := fi.ModTime()
	return Stat{
		CtimeSec: uint32(t.Unix()), CtimeNsec: uint32(t.Nanosecond()),
		MtimeSec: uint32(t.Unix()), MtimeNsec: uint32(t.Nanosecond()),
		Size: uint32(fi.Size()),
	}
}

// Unchanged reports whether a and b, two stats of one path, describe the
// same file, unchanged: the same file (os.SameFile: device and inode on
// unix, volume and file index on Windows), the same size and mtime, and the
// same ctime (StatOf says what that is on each system). git replaces the
// files it changes by rename, so a change of git's is another file.
func Unchanged(a, b os.FileInfo) bool {
	if a == nil || b == nil || !os.SameFile(a, b) || a.Size() != b.Size() || !a.ModTime().Equal(b.ModTime()) {
		return false
	}
	sa, sb := StatOf(a), StatOf(b)
	return sa.CtimeSec == sb.CtimeSec && sa.CtimeNsec == sb.CtimeNsec
}
