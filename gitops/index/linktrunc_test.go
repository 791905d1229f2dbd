package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// A link extension whose bitmap is cut inside its header (the bit and
// word counts there, the last-marker position not) is refused as
// damaged, split or with a null link (git stopped splitting), never read
// past its end.
func TestALinkBitmapCutBeforeItsMarkerIsRefused(t *testing.T) {
	for _, null := range []bool{false, true} {
		for _, cut := range []int{8, 9, 11} {
			t.Run(fmt.Sprintf("null=%v cut=%d", null, cut), func(t *testing.T) {
				t.Parallel()
				r := splitRepo(t, 2)
				l := linkOf(t, r)
				b := []byte("DIRC")
				b = binary.BigEndian.AppendUint32(b, 2)
				b = binary.BigEndian.AppendUint32(b, 0)
				link := append([]byte(nil), l.hash[:]...)
				if null {
					link = make([]byte, 20)
				}
				link = append(link, make([]byte, cut)...) // bits 0, words 0, then cut
				b = idxAppendExt(b, "link", link)
				b = append(b, make([]byte, 20)...)
				if err := os.WriteFile(r.indexPath(), withSum(b), 0o644); err != nil {
					t.Fatal(err)
				}
				_, err := ReadIndex(r.indexPath())
				var ue *UnsupportedIndexError
				if !errors.As(err, &ue) || !strings.Contains(ue.Reason, "damaged") {
					t.Fatalf("ReadIndex = %v, want the index refused as damaged", err)
				}
			})
		}
	}
}
