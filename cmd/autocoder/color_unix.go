//go:build !windows

package main

import "os"

// vtColor reports whether the terminal f takes escape sequences: every
// terminal outside Windows does.
func vtColor(*os.File) bool { return true }
