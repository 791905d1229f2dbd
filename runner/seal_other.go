//go:build !linux

package runner

// sealEnviron: outside Linux no other process of the user reads
// autocoder's environment through a file (see seal_linux.go).
func sealEnviron() {}
