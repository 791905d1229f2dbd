//go:build unix

package gitops

import (
	"os"
	"syscall"
)

// holdSpares: loose objects get spares made read-only and kept open (see
// Spares.takeObject). A file held open can be renamed here.
const holdSpares = true

// soleName reports whether name is a regular file and its one name (see
// Spares.take).
func soleName(name string) bool {
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 1
}
