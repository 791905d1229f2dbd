//go:build !unix

package gitops

// holdSpares is false: a file this process holds open cannot be renamed on
// Windows (Go opens files without FILE_SHARE_DELETE), so loose objects
// take the spares every file takes, and are made read-only after.
const holdSpares = false
