//go:build unix

package gitops

import (
	"os"
	"syscall"
)

// holdSpares: loose objects get spares made read-only and kept open (see
// Spares.takeObject). A file held open can be renamed here.
const holdSpares = true

// oneLink reports whether fi, name's Lstat, counts one link (see soleName).
func oneLink(_ string, fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 1
}
