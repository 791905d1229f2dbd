package gitops

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// treeOfRaw is a valid tree whose loose stream holds exactly raw bytes of
// header and content: entries "100644 fNNNNN\x00<20 bytes>" (34 bytes),
// the last name padded out to the length wanted.
func treeOfRaw(t *testing.T, raw int, blob Hash) []byte {
	t.Helper()
	size := raw - len(fmt.Sprintf("tree %d\x00", raw))
	if size != raw-len(fmt.Sprintf("tree %d\x00", size)) {
		t.Fatalf("no tree has a stream of %d bytes", raw)
	}
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		name := fmt.Sprintf("f%05d", i)
		if left := size - b.Len(); left < 2*34 {
			name += strings.Repeat("x", left-34) // the last entry
		}
		fmt.Fprintf(&b, "100644 %s\x00", name)
		b.Write(blob[:])
	}
	if b.Len() != size {
		t.Fatalf("a tree of %d bytes, want %d", b.Len(), size)
	}
	return b.Bytes()
}

// Trees whose stream is one stored block, one byte more or less, and
// whole multiples of it (git writes trees stored; every length there is
// on is a trap for the block arithmetic) are read as written by every
// reader: ours, go-git's, git's (cat-file, fsck --strict), and by git
// again after git gc packed them. The loose file is the stored stream:
// its length is the content's, the blocks' headers and the checksum.
func TestStoredTreesAtTheBlockLimitGitReads(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	r := openIn(t, g.Dir)
	blob, err := r.WriteBlob([]byte("in every entry\n"))
	if err != nil {
		t.Fatal(err)
	}
	const most = 65535
	raws := []int{most - 1, most, most + 1, 2*most - 1, 2 * most, 2*most + 1, 3 * most}
	trees := map[Hash][]byte{}
	for i, raw := range raws {
		data := treeOfRaw(t, raw, blob)
		h, err := r.WriteObject(plumbing.TreeObject, data)
		if err != nil {
			t.Fatal(err)
		}
		trees[h] = data
		hex := h.String()
		fi, err := os.Stat(filepath.Join(g.Dir, ".git", "objects", hex[:2], hex[2:]))
		blocks := (raw + most - 1) / most
		if err != nil || fi.Size() != int64(2+raw+5*blocks+4) {
			t.Fatalf("the %d-byte stream's loose file: %v %v, want %d bytes", raw, fi.Size(), err, 2+raw+5*blocks+4)
		}
		if got, ok := r.readLoose(plumbing.TreeObject, h); !ok || !bytes.Equal(got, data) {
			t.Fatalf("readLoose of the %d-byte stream: %d bytes, %v", raw, len(got), ok)
		}
		o, err := r.objects.EncodedObject(plumbing.TreeObject, h)
		if err != nil {
			t.Fatalf("go-git reads the %d-byte stream: %v", raw, err)
		}
		rd, err := o.Reader()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rd)
		rd.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("go-git reads %d bytes of the %d-byte stream: %v", len(got), raw, err)
		}
		if got := g.Git("cat-file", "tree", hex); got != string(data) {
			t.Fatalf("git reads %d bytes of the %d-byte stream", len(got), raw)
		}
		// Named by a ref: fsck checks it, gc packs it.
		g.Git("update-ref", fmt.Sprintf("refs/keep/%d", i), hex)
	}
	g.Fsck()
	g.Git("gc", "-q", "--prune=now")
	if out := g.Git("count-objects", "-v"); !strings.Contains(out, "count: 0\n") {
		t.Fatalf("git gc left loose objects:\n%s", out)
	}
	g.Fsck()
	after := openIn(t, g.Dir)
	for h, data := range trees {
		if got, err := after.ReadObject(plumbing.TreeObject, h); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s after git gc: %d bytes, %v", h, len(got), err)
		}
	}
}

// Blobs written stored (up to storedUpTo with their header) are read by
// git's own unpacking: pack-objects packs the loose files as they are
// (their stream inflated, then deflated again), unpack-objects in another
// repository writes them back loose with git's zlib, and the names agree.
func TestStoredBlobsGitPacksAndUnpacks(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	r := openIn(t, g.Dir)
	var names []string
	want := map[string]string{}
	for _, n := range []int{0, 1, 100, 4085, 4086} {
		content := strings.Repeat("y", n)
		h, err := r.WriteBlob([]byte(content))
		if err != nil {
			t.Fatal(err)
		}
		hex := h.String()
		fi, err := os.Stat(filepath.Join(g.Dir, ".git", "objects", hex[:2], hex[2:]))
		raw := len(fmt.Sprintf("blob %d\x00", n)) + n
		if err != nil || fi.Size() != int64(2+raw+5+4) {
			t.Fatalf("the %d-byte blob's loose file: %v %v, want %d bytes stored", n, fi.Size(), err, 2+raw+5+4)
		}
		names = append(names, hex)
		want[hex] = content
	}
	pack := g.GitIn(strings.Join(names, "\n")+"\n", "pack-objects", "--stdout")
	other := gittest.NewWithCommit(t, map[string]string{"b.txt": "b\n"})
	other.GitIn(pack, "unpack-objects", "-q")
	for hex, content := range want {
		if got := other.Git("cat-file", "blob", hex); got != content {
			t.Fatalf("%s unpacked elsewhere: %d bytes, want %d", hex, len(got), len(content))
		}
	}
	other.Fsck()
	g.Fsck()
}
