package gitops

import (
	"os"

	"github.com/autocoder/autocoder/gitops/index"
)

// SameStat reports whether was and now, two stats of one path where nil
// is absent, say the same: both absent, or the same file unchanged
// (Unchanged).
func SameStat(was, now os.FileInfo) bool {
	return (was == nil) == (now == nil) && (was == nil || Unchanged(was, now))
}

// Unchanged reports whether a and b, two stats of one path, describe the
// same file, unchanged: the same file (os.SameFile: device and inode on
// unix, volume and file index on Windows), the same size and mtime, and the
// same ctime (index.StatOf says what that is on each system). git replaces
// the files it changes by rename, so a change of git's is another file.
func Unchanged(a, b os.FileInfo) bool {
	if a == nil || b == nil || !os.SameFile(a, b) || a.Size() != b.Size() || !a.ModTime().Equal(b.ModTime()) {
		return false
	}
	sa, sb := index.StatOf(a), index.StatOf(b)
	return sa.CtimeSec == sb.CtimeSec && sa.CtimeNsec == sb.CtimeNsec
}
