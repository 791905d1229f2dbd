//go:build unix

package gitops

import (
	"os"
	"syscall"
)

// Rename renames the file old to new, replacing a file at new, as
// os.Rename does, without the lstat of new that os.Rename makes first on
// unix (to refuse replacing a folder with a file, which rename(2) refuses
// too: EISDIR). A one-file call renames some twenty files under .git and
// in the work tree, each a lookup fewer. For files only: a folder renamed
// over an empty folder would replace it, which os.Rename refuses.
func Rename(old, new string) error {
	for {
		err := syscall.Rename(old, new)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &os.LinkError{Op: "rename", Old: old, New: new, Err: err}
		}
		return nil
	}
}
