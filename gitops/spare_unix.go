//go:build unix

package gitops

// holdSpares: loose objects get spares made read-only and kept open (see
// Spares.takeObject). A file held open can be renamed here.
const holdSpares = true
