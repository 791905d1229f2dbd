package gitops_test

import (
	"os"
	"syscall"
	"testing"

	"github.com/autocoder/autocoder/gitops"
)

// Reserve reserves only on ext4, whose rename it spares a flush: on
// tmpfs (/dev/shm) a reservation is memory held for nothing, and other
// file systems gain nothing from it either.
func TestReserveIsForExt4Only(t *testing.T) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &fs); err != nil || fs.Type != 0x01021994 { // TMPFS_MAGIC
		t.Skip("no tmpfs at /dev/shm")
	}
	f, err := os.CreateTemp("/dev/shm", "autocoder-reserve-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	gitops.Reserve(f, 0, 1<<20)
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if blocks := fi.Sys().(*syscall.Stat_t).Blocks; blocks != 0 || fi.Size() != 0 {
		t.Fatalf("a file on tmpfs has %d blocks (size %d) after Reserve: reserved off ext4", blocks, fi.Size())
	}
}
