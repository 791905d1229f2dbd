//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package mapfile

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Map maps path read-only; release unmaps it. Only a regular file is
// opened (a pipe named like one would be waited on forever).
func Map(path string) (data []byte, release func(), err error) {
	f, size, err := openRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if size <= 0 || size != int64(int(size)) {
		return nil, nil, errors.New("not a regular file of a size that can be mapped")
	}
	data, err = unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { unix.Munmap(data) }, nil
}
