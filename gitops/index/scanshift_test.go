package index

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A kept scan whose slots 5-19 each hold the next entry's slot (as if one
// slot were lost at 5 and one doubled at 20) passes every check a step
// makes: each of those slots fits its entry and starts where the slot
// before it ends; only slots 5 and 20 do not fit, and a binary search for
// an entry in between never takes them. The step's split write then
// records positions one too low: git replaces another entry than the one
// changed. A damaged scan must be a fallback or an error, never a wrong
// index.
func TestAKeptScanShiftedByOneSlotWritesNoWrongPositions(t *testing.T) {
	for _, version := range []int{2, 4} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			r := splitRepo(t, version)
			m := &memVerifier{scans: map[string][]byte{}}
			l := linkOf(t, r)
			shared := filepath.Join(r.dir, ".git", fmt.Sprintf("sharedindex.%x", l.hash))
			forgetSharedPath(shared)
			truth, err := ReadIndexWith(r.indexPath(), m)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(shared)
			scan := bytes.Clone(m.scans[name])
			h := len(scanMagic) + 16
			copy(scan[h+5*scanSlotLen:h+20*scanSlotLen], m.scans[name][h+6*scanSlotLen:h+21*scanSlotLen])
			m.scans[name] = scan

			s := truth.slot(12)
			p := string(truth.name(&s))
			forgetSharedPath(shared)
			lock, err := Lock(r.indexPath())
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Rollback()
			ix, err := ReadIndexWith(r.indexPath(), m)
			if err != nil {
				t.Fatal(err)
			}
			if m.used != 1 {
				t.Fatalf("the kept scan was not used (%d)", m.used)
			}
			r.write(p, "changed by the step\n")
			e := r.entry(p)
			if err := ix.Update([]IndexEntry{e}, nil); err != nil {
				t.Fatal(err)
			}
			if err := truth.Update([]IndexEntry{e}, nil); err != nil {
				t.Fatal(err)
			}
			before := r.gitLsDebug()
			if err := WriteIndex(lock, ix); err != nil {
				// Refused: acceptable if nothing changed.
				if got := r.gitLsDebug(); got != before {
					t.Fatalf("a refused write changed the index")
				}
				return
			}
			if got, want := r.gitLsDebug(), lsDebug(truth); got != want {
				t.Errorf("changing %s, git reads another index than the one changed: %s", p,
					strings.Join(diffLines(got, want), "\n"))
			}
		})
	}
}

// diffLines lists the lines of a not in b ("-") and of b not in a ("+").
func diffLines(a, b string) []string {
	var out []string
	for _, l := range strings.Split(a, "\n") {
		if !strings.Contains(b, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !strings.Contains(a, l) {
			out = append(out, "+ "+l)
		}
	}
	return out
}
