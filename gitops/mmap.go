package gitops

import (
	"errors"
	"os"
)

// openRegular opens path for mapFile, only when it is a regular file, and
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
