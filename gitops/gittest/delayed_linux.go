package gittest

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fiemap is FS_IOC_FIEMAP's request (linux/fiemap.h): a header of 32
// bytes, then fm_extent_count extents of 56 bytes each.
const (
	fsIocFiemap          = 0xC020660B
	fiemapExtentDelalloc = 0x4 // FIEMAP_EXTENT_DELALLOC
	fiemapHeader         = 32
	fiemapExtent         = 56
	fiemapExtentsAsked   = 64
	fiemapExtentFlagsAt  = 40 // fe_flags within an extent
)

// DelayedAllocation reports whether some of path's bytes still wait for
// their disk blocks (ext4's delayed allocation: FIEMAP_EXTENT_DELALLOC),
// and known=false where the file system does not map files (FIEMAP).
func DelayedAllocation(t testing.TB, path string) (delayed, known bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, fiemapHeader+fiemapExtent*fiemapExtentsAsked)
	binary.NativeEndian.PutUint64(buf[8:], ^uint64(0)) // fm_length: the whole file
	binary.NativeEndian.PutUint32(buf[24:], fiemapExtentsAsked)
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, f.Fd(), fsIocFiemap, uintptr(unsafe.Pointer(&buf[0]))); errno != 0 {
		return false, false
	}
	mapped := int(binary.NativeEndian.Uint32(buf[20:]))
	for i := range min(mapped, fiemapExtentsAsked) {
		at := fiemapHeader + i*fiemapExtent + fiemapExtentFlagsAt
		if binary.NativeEndian.Uint32(buf[at:])&fiemapExtentDelalloc != 0 {
			return true, true
		}
	}
	return false, true
}

// DelayingAllocation writes a file in dir and skips the test unless the
// file system delays its allocation (ext4 does, unless mounted
// nodelalloc): a test that checks that a file it writes is not delayed
// means nothing elsewhere. still, called after that check, skips the test
// when the probe is no longer delayed: a writeback meanwhile (a sync
// beside the test) would have allocated the checked file too.
func DelayingAllocation(t testing.TB, dir string) (still func()) {
	t.Helper()
	probe := filepath.Join(dir, "delayed-allocation-probe")
	if err := os.WriteFile(probe, make([]byte, 8192), 0o666); err != nil {
		t.Fatal(err)
	}
	if delayed, known := DelayedAllocation(t, probe); !known || !delayed {
		t.Skipf("the file system of %s does not delay allocation (or does not say): nothing to check", dir)
	}
	return func() {
		if delayed, _ := DelayedAllocation(t, probe); !delayed {
			t.Skip("the file system wrote its delayed blocks meanwhile (a sync beside the test): the check proves nothing")
		}
	}
}
