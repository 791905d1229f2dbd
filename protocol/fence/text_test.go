package fence

import (
	"reflect"
	"testing"
)

// TestAtAndEnclosing checks which block holds each line of a text with two
// fences: At counts the fence lines in, Enclosing only the content.
func TestAtAndEnclosing(t *testing.T) {
	text := []byte("a\n```\nb\n```\nc\n~~~\nd\r\n~~~\n")
	blocks := Scan(text)
	type want struct{ at, in int } // block index, -1 for none
	wants := []want{{-1, -1}, {0, -1}, {0, 0}, {0, -1}, {-1, -1}, {1, -1}, {1, 1}, {1, -1}}
	ls := Lines(text, 0)
	if len(ls) != len(wants) {
		t.Fatalf("%d lines, want %d", len(ls), len(wants))
	}
	index := func(b *Block) int {
		for i := range blocks {
			if b == &blocks[i] {
				return i
			}
		}
		return -1
	}
	for i, l := range ls {
		if got := (want{index(At(blocks, l.Off)), index(Enclosing(blocks, l.Off))}); got != wants[i] {
			t.Errorf("line %d %q: At, Enclosing = %v, want %v", i+1, l.S, got, wants[i])
		}
	}
}

// TestLines checks the lines' text (CR LF and LF both end a line, the last
// line may have no ending) and offsets, shifted by base.
func TestLines(t *testing.T) {
	got := Lines([]byte("ab\r\n\ncd"), 10)
	want := []Line{{"ab", 10}, {"", 14}, {"cd", 15}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Lines = %v, want %v", got, want)
	}
}
