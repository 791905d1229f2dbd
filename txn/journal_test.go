package txn

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replaceFile rewrites the engine's own files in place: content a little
// shorter than the file is filled with spaces rather than cut (cutting a
// file shorter costs ext4 a write-back of its last block, 0.1 ms at every
// step whose journal is shorter than the last), and what it wrote reads as
// the new content, nothing of the old; content far shorter is cut once.
func TestReplaceFileFillsRatherThanCuts(t *testing.T) {
	t.Parallel()
	name := filepath.Join(t.TempDir(), "journal.json")
	read := func(want plan, size int) {
		t.Helper()
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != size {
			t.Errorf("the file holds %d bytes, want %d", len(b), size)
		}
		var got plan
		if err := json.Unmarshal(b, &got); err != nil || got.StepID != want.StepID || got.Message != want.Message {
			t.Errorf("the file reads %+v (%v), want %+v", got, err, want)
		}
		if want.StepID != "ancient" && strings.Contains(string(b), "ancient") {
			t.Errorf("the file still holds the old content: %q", b)
		}
		if err := retireFile(name); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p plan) int {
		t.Helper()
		b, _ := json.Marshal(p)
		if err := replaceFile(name, b); err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	long := plan{StepID: "ancient", Message: strings.Repeat("ancient ", 50)}
	n := write(long)
	read(long, n)
	short := plan{StepID: "s2", Message: "new"}
	write(short)
	read(short, n) // filled to the old length
	b, _ := os.ReadFile(name + ".tmp")
	if m, _ := json.Marshal(short); !bytes.Equal(bytes.TrimRight(b, " "), m) {
		t.Errorf("the file holds %q, want %q and spaces", b, m)
	}
	huge := plan{StepID: "s3", Message: strings.Repeat("x", 3*maxPad)}
	write(huge)
	n = write(short)
	read(short, n) // cut: far shorter
}
