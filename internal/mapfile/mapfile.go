// Package mapfile maps a file read-only into memory, where the system
// allows, and reads it whole where it does not (Windows). git's pack
// indexes and shared index files are looked up in a few places, or parsed
// once and kept: a mapping reads them from the page cache without copying,
// and without the page faults of a fresh heap buffer. A mapped file must
// not shrink while mapped (reading past its new end is a SIGBUS): git
// replaces those files by rename, never in place, and so does autocoder.
package mapfile

import (
	"errors"
	"os"
)

// openRegular opens path for Map, only when it is a regular file, and
// returns its size. It looks before opening: opening a pipe named like an
// index would wait forever; and again after, on the file it opened.
func openRegular(path string) (*os.File, int64, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, 0, err
	} else if !fi.Mode().IsRegular() {
		return nil, 0, errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, errors.New("not a regular file")
	}
	return f, fi.Size(), nil
}
