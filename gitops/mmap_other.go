//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package gitops

import (
	"errors"
	"io"
	"os"
)

// mapFile reads path whole where autocoder does not map files (Windows and
// the rest): one read of the file, which is still far fewer than go-git's
// decoding makes.
func mapFile(path string) (data []byte, release func(), err error) {
	// Stat first: opening a pipe named like an index would wait forever.
	if fi, err := os.Stat(path); err != nil {
		return nil, nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, nil, errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, errors.New("not a regular file")
	}
	data = make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, func() {}, nil
}
