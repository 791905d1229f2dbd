package gitops

import (
	"bytes"
	"compress/zlib"
	"io"
	"math/rand"
	"testing"
)

// storedZlib's stream is zlib's: compress/zlib reads back every byte, its
// checksum included, across the stored block's 65,535-byte limit.
// (TestWriteObjectLikeGit has git read the objects written so.)
func TestStoredZlibIsReadAsZlib(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 100, 65535 - 7, 65535 - 6, 65535, 65536, 2*65535 - 6, 2*65535 + 1, 300000} {
		head := []byte("blob 0\x00")
		data := make([]byte, n)
		rand.New(rand.NewSource(int64(n))).Read(data)
		stream := storedZlib(head, data)
		zr, err := zlib.NewReader(bytes.NewReader(stream))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if err := zr.Close(); err != nil {
			t.Fatalf("%d bytes: close: %v", n, err)
		}
		if !bytes.Equal(got, append(head, data...)) {
			t.Fatalf("%d bytes: read back %d bytes, not the same", n, len(got))
		}
		if !bytes.Equal(head, []byte("blob 0\x00")) {
			t.Fatalf("%d bytes: the header slice was written into", n)
		}
		// A changed byte fails the checksum.
		stream[len(stream)-5] ^= 1
		zr, _ = zlib.NewReader(bytes.NewReader(stream))
		if _, err := io.ReadAll(zr); err == nil {
			t.Fatalf("%d bytes: a damaged stream was read without an error", n)
		}
	}
}
