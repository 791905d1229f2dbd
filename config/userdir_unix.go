//go:build !windows

package config

import (
	"fmt"
	"os"

	"github.com/autocoder/autocoder/step"
)

// checkOwnerOnly refuses a file that others may write, or read when it is
// a secret.
func checkOwnerOnly(path string, fi os.FileInfo, secret bool) error {
	mask := os.FileMode(0o022)
	if secret {
		mask = 0o077
	}
	if fi.Mode().Perm()&mask != 0 {
		return &step.Error{C: step.ClassRefused,
			Msg: fmt.Sprintf("%s may be read or written by other accounts (mode %04o)", path, fi.Mode().Perm()),
			Fix: "chmod 600 " + path}
	}
	return nil
}
