package index

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Functions only the tests use: the binary does not need them (deadcode),
// so they live beside the tests that do.

// ReadIndex is ReadIndexWith without a Verifier: every shared index is
// hashed and walked at every read.
func ReadIndex(path string) (*Index, error) { return ReadIndexWith(path, nil) }

// WriteIndex is both halves of an index write at once, as the engine makes
// them outside a session's step (PrepareIndex, then FinishIndex).
func WriteIndex(lock LockFile, ix *Index) error {
	if err := PrepareIndex(lock, ix); err != nil {
		return err
	}
	return FinishIndex(lock, ix)
}

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

// lockAndRead takes the index's lock and reads the index under it, as a
// writer must, failing the test on an error.
func lockAndRead(t testing.TB, r *gitRepo) (*testLock, *Index) {
	t.Helper()
	lock, err := Lock(r.indexPath())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := ReadIndex(r.indexPath())
	if err != nil {
		lock.Rollback()
		t.Fatal(err)
	}
	return lock, ix
}

// testLock is git's lock-file protocol reduced to what WriteIndex needs,
// for the tests of this package, which cannot import gitops (it imports
// this package): gitops.LockFile is the real one, and gitops's tests write
// the index through it.
type testLock struct {
	path string
	f    *os.File
}

// Lock takes path + ".lock" as git does: exclusively, failing when it
// exists.
func Lock(path string) (*testLock, error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &testLock{path: path, f: f}, nil
}

func (l *testLock) Path() string                { return l.path }
func (l *testLock) Write(p []byte) (int, error) { return l.f.Write(p) }

func (l *testLock) Commit() error {
	if l.f == nil {
		return fmt.Errorf("lock %s: already released", l.path)
	}
	err := l.f.Close()
	l.f = nil
	if err == nil {
		err = os.Rename(l.path+".lock", l.path)
	}
	if err != nil {
		os.Remove(l.path + ".lock")
	}
	return err
}

func (l *testLock) Rollback() {
	if l.f != nil {
		l.f.Close()
		l.f = nil
		os.Remove(l.path + ".lock")
	}
}

// resealScan recomputes the checksums of a kept scan a test changed, as
// if it had been damaged before it was sealed: only the checks of its
// slots against the file can tell then (keptScan.check).
func resealScan(b []byte) []byte {
	h := len(scanMagic)
	n := int(binary.LittleEndian.Uint32(b[h:]))
	ngit := int(binary.LittleEndian.Uint32(b[h+4:]))
	nnames := int(binary.LittleEndian.Uint32(b[h+12:]))
	return appendScanSums(b[:h+16+(n+ngit)*scanSlotLen+nnames:h+16+(n+ngit)*scanSlotLen+nnames], n, ngit)
}

// changeEntry gives ix's entry p another object name, and stat data st
// (zero: its own), through Update, and returns the entry as set.
func changeEntry(t *testing.T, ix *Index, p string, st Stat) IndexEntry {
	t.Helper()
	e, ok := ix.Entry(p)
	if !ok {
		t.Fatalf("%s not found", p)
	}
	e.Hash[0] ^= 0xff
	if st != (Stat{}) {
		e.Stat = st
	}
	if err := ix.Update([]IndexEntry{e}, nil); err != nil {
		t.Fatal(err)
	}
	return e
}

// racyChange makes the tracked file rel racily clean and changed: as if
// git had written the index in the second the file was written, and the
// file then changed to content in that second (same mtime; ctime not
// trusted).
func racyChange(t *testing.T, r *gitRepo, rel, content string) {
	t.Helper()
	r.git("config", "core.trustctime", "false")
	p := filepath.Join(r.dir, rel)
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	T := fi.ModTime()
	if err := os.Chtimes(r.indexPath(), T, T); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, T, T); err != nil {
		t.Fatal(err)
	}
}

// readKept is the shared index data read from the kept scan scan, as a
// Verifier's read takes it (trusted: not hashed), every lookup tried once
// on each entry; nil when the scan does not fit at the read.
func readKept(t *testing.T, data, scan []byte) *Index {
	ix := &Index{path: filepath.Join(t.TempDir(), "index"), data: data, trusted: true, maxPercent: DefaultMaxPercentChange}
	done := make(chan struct{})
	close(done)
	ix.hashDone = done
	if ix.parseWith(scan) != nil {
		return nil
	}
	for e := range ix.All() {
		ix.Entry(e.Path)
		ix.Stages(e.Path)
		ix.HasPrefix(e.Path)
	}
	ix.Gitlinks()
	return ix
}
