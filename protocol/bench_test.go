package protocol

import (
	"fmt"
	"strings"
	"testing"
)

// response builds a response of about size bytes holding blocks instruction
// blocks: Axon write_file and replace acts, autocoder JSON blocks and MCP
// requests in turn, with prose between them and file content padding each
// to the size. The blocks of a dialect not yet in dialects are prose to
// Parse, so the benchmark grows with the registry.
func response(size, blocks int) []byte {
	var b strings.Builder
	b.Grow(size + 4096)
	pad := size / blocks
	line := "\tfmt.Println(\"the quick brown fox jumps over the lazy dog\") // 好的\n"
	body := strings.Repeat(line, max(1, (pad-300)/len(line)))
	for i := 0; i < blocks; i++ {
		fmt.Fprintf(&b, "Step %d: here is why the change is needed.\n\n", i)
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nsrc/f%d.go\n~~~~~\n~~~~~go\n```go\n%s```\n~~~~~\n\n", i, body)
		case 1:
			fmt.Fprintf(&b, "~~~~~act\nreplace src/f%d.go\n~~~~~\n~~~~~\n%s~~~~~\n~~~~~\n%s~~~~~\n\n", i-1, body[:len(body)/2], body[:len(body)/2])
		case 2:
			fmt.Fprintf(&b, "#####--\n{\"metadata\": {\"step_id\": \"s%d\", \"reason\": \"r\"}, \"type\": \"operate\", \"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"g%d.go\", \"file_content\": %q}]}\n--#####\n\n", i, i, body)
		case 3:
			fmt.Fprintf(&b, "```mcp-request\n{\"jsonrpc\":\"2.0\",\"id\":\"call-%d\",\"method\":\"tools/call\",\"params\":{\"name\":\"fs.write\",\"arguments\":{\"path\":\"h%d.go\",\"content\":%q}}}\n```\n\n", i, i, body)
		}
	}
	return []byte(b.String())
}

// BenchmarkParse10MB measures detection over a 10 MB response with 1,000
// blocks (target: under 100 ms), and over 1 MB with the same block count so
// that the two show the cost grows linearly with the text.
func BenchmarkParse10MB(b *testing.B) {
	for _, size := range []int{1 << 20, 10 << 20} {
		text := response(size, 1000)
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if items := Parse(text); len(items) < 500 {
					b.Fatalf("%d items, want at least the 500 Axon ones", len(items))
				}
			}
		})
	}
}

// BenchmarkDialect runs each registered reader alone over the 10 MB
// response, to tell which one a slow BenchmarkParse10MB spends its time in.
func BenchmarkDialect(b *testing.B) {
	text := response(10<<20, 1000)
	for _, d := range dialects {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				d.parse(text)
			}
		})
	}
}

// formatsResponse builds a response of about size bytes holding hunks
// changes in the edit formats of FORMATS.md: apply_patch envelopes and diff
// fences of ten chunks each, every chunk padded with context lines to the
// size, with prose between the blocks.
func formatsResponse(format string, size, hunks int) []byte {
	var b strings.Builder
	b.Grow(size + 4096)
	pad := size / hunks
	line := "\tfmt.Println(\"the quick brown fox jumps over the lazy dog\") // 好的\n"
	n := max(1, (pad-200)/(len(line)+1))
	for i := 0; i < hunks; i++ {
		if i%10 == 0 {
			fmt.Fprintf(&b, "Block %d: here is why the change is needed.\n\n", i/10)
			if format == "apply_patch" {
				fmt.Fprintf(&b, "*** Begin Patch\n*** Update File: src/f%d.go\n", i/10)
			} else {
				fmt.Fprintf(&b, "```diff\n--- a/src/f%d.go\n+++ b/src/f%d.go\n", i/10, i/10)
			}
		}
		if format == "apply_patch" {
			fmt.Fprintf(&b, "@@ func f%d() {\n", i)
		} else {
			fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", i*n, n+1, i*n, n+1)
		}
		b.WriteString(strings.Repeat(" "+line, n/2))
		fmt.Fprintf(&b, "-\tx := %d\n+\tx := %d\n", i, i+1)
		b.WriteString(strings.Repeat(" "+line, n-n/2))
		if i%10 == 9 {
			if format == "apply_patch" {
				b.WriteString("*** End Patch\n\n")
			} else {
				b.WriteString("```\n\n")
			}
		}
	}
	return []byte(b.String())
}

// BenchmarkFormats10MB measures reading a 10 MB answer of 1,000 hunks in
// each edit format of FORMATS.md (target: well under 100 ms), and 1 MB with
// the same hunks, so that the two show the cost grows with the text.
func BenchmarkFormats10MB(b *testing.B) {
	for _, format := range []string{"apply_patch", "udiff"} {
		for _, size := range []int{1 << 20, 10 << 20} {
			text := formatsResponse(format, size, 1000)
			b.Run(fmt.Sprintf("%s/%dMB", format, size>>20), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					items := Parse(text)
					if len(items) != 100 || items[0].Step == nil || len(items[0].Step.Ops[0].Edits) != 10 {
						b.Fatalf("%d items, want 100 steps of 10 hunks", len(items))
					}
				}
			})
		}
	}
}
