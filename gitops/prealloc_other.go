//go:build !linux

package gitops

import "os"

// Reserve does nothing here: the delayed allocation it avoids at a rename
// over a file is ext4's (see prealloc_linux.go).
func Reserve(*os.File, int64, int64) {}

// allocated is 0: nothing is reserved here.
func allocated(os.FileInfo) int64 { return 0 }
