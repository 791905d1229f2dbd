//go:build !linux && !darwin && !windows

package index

import "os"

// StatOf returns the stat data git records for a file. Without a unix stat
// structure only mtime and size are known; git on such systems compares
// little more than that.
func StatOf(fi os.FileInfo) Stat { return statFallback(fi) }
