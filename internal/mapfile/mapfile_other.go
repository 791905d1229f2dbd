//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package mapfile

import "io"

// Map reads path whole where autocoder does not map files (Windows and
// the rest): one read of the file, which is still far fewer than go-git's
// decoding makes.
func Map(path string) (data []byte, release func(), err error) {
	f, size, err := openRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data = make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, func() {}, nil
}
