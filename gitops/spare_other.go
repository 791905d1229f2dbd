//go:build !unix && !windows

package gitops

import "os"

// holdSpares is false, as on Windows (spare_windows.go).
const holdSpares = false

// oneLink is true: links are not counted here (see soleName).
func oneLink(string, os.FileInfo) bool { return true }
