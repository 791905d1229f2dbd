//go:build !unix

package gitops

import "os"

// Rename renames the file old to new, replacing a file at new: os.Rename
// (see rename_unix.go).
func Rename(old, new string) error { return os.Rename(old, new) }
