package gitops

// Functions only the tests use: the binary does not need them (deadcode),
// so they live beside the tests that do.

// parseIndex makes an Index of data, the content of the file path whose
// mtime was sec, nsec.
func parseIndex(path string, data []byte, sec, nsec uint32) (*Index, error) {
	ix := &Index{path: path, data: data, mtimeSec: sec, mtimeNsec: nsec}
	hashed := ix.startHash()
	hashed <- len(data)
	close(hashed)
	if err := ix.parse(); err != nil {
		return nil, err
	}
	return ix, nil
}
