package index

import (
	"os"
	"syscall"
)

// StatOf returns the stat data git records for a file, from fi (which must
// come from os.Lstat, as git uses lstat), each field truncated to 32 bits
// like git's fill_stat_data.
func StatOf(fi os.FileInfo) Stat {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statFallback(fi)
	}
	return Stat{
		CtimeSec: uint32(st.Ctim.Sec), CtimeNsec: uint32(st.Ctim.Nsec),
		MtimeSec: uint32(st.Mtim.Sec), MtimeNsec: uint32(st.Mtim.Nsec),
		Dev: uint32(st.Dev), Ino: uint32(st.Ino),
		UID: st.Uid, GID: st.Gid,
		Size: uint32(st.Size),
	}
}
