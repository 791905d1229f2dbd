//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package gitops

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps path read-only: a pack index is looked up in a few places
// (packidx.go), which a mapping reads from the page cache without copying
// the file. release unmaps it.
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
	if !fi.Mode().IsRegular() || fi.Size() <= 0 || fi.Size() != int64(int(fi.Size())) {
		return nil, nil, errors.New("not a regular file of a size that can be mapped")
	}
	data, err = unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { unix.Munmap(data) }, nil
}
