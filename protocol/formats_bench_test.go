package protocol

import (
	"fmt"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/protocol/editorjson"
	"github.com/autocoder/autocoder/protocol/searchreplace"
	"github.com/autocoder/autocoder/protocol/wholefile"
	"github.com/autocoder/autocoder/step"
)

// formatAnswer builds an answer of about size bytes holding blocks blocks of
// one edit format, with prose between them and content padding each block.
func formatAnswer(format string, size, blocks int) []byte {
	var b strings.Builder
	b.Grow(size + 4096)
	line := "\tfmt.Println(\"the quick brown fox jumps over the lazy dog\") // 好的\n"
	body := strings.Repeat(line, max(1, (size/blocks-300)/len(line)))
	half := body[:len(body)/2]
	for i := 0; i < blocks; i++ {
		fmt.Fprintf(&b, "Step %d: here is why the change is needed.\n\n", i)
		switch format {
		case "aider":
			fmt.Fprintf(&b, "src/f%d.go\n```go\n<<<<<<< SEARCH\n%s=======\n%s>>>>>>> REPLACE\n```\n\n", i, half, half)
		case "cline":
			fmt.Fprintf(&b, "<replace_in_file>\n<path>src/f%d.go</path>\n<diff>\n------- SEARCH\n%s=======\n%s+++++++ REPLACE\n</diff>\n</replace_in_file>\n\n", i, half, half)
		case "whole":
			fmt.Fprintf(&b, "src/f%d.go\n```go\n%s```\n\n", i, body)
		case "editor":
			fmt.Fprintf(&b, "{\"command\": \"str_replace\", \"path\": \"src/f%d.go\", \"old_str\": %q, \"new_str\": %q}\n\n", i, half, half)
		}
	}
	return []byte(b.String())
}

// BenchmarkFormatBlocks10MB runs each edit-format reader over a 10 MB answer of
// 1,000 blocks of its own format (target: well under 100 ms each), and the
// whole Parse over the same answer.
func BenchmarkFormatBlocks10MB(b *testing.B) {
	readers := map[string]func([]byte) []step.Item{
		"aider": searchreplace.Parse, "cline": searchreplace.Parse, "whole": wholefile.Parse, "editor": editorjson.Parse,
	}
	for _, f := range []string{"aider", "cline", "whole", "editor"} {
		text := formatAnswer(f, 10<<20, 1000)
		b.Run(f, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if items := readers[f](text); len(items) != 1000 {
					b.Fatalf("%d items, want 1000", len(items))
				}
			}
		})
		b.Run(f+"/Parse", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if items := Parse(text); len(items) != 1000 {
					b.Fatalf("%d items, want 1000", len(items))
				}
			}
		})
	}
}
