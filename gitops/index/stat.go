package index

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
