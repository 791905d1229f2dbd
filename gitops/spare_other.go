//go:build !unix && !windows

package gitops

import "os"

// holdSpares is false, as on Windows (spare_windows.go).
const holdSpares = false

// soleName reports whether name is a regular file (see Spares.take); its
// links are not counted here.
func soleName(name string) bool {
	fi, err := os.Lstat(name)
	return err == nil && fi.Mode().IsRegular()
}
