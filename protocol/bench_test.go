package protocol

import (
	"fmt"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/protocol/fence"
)

// benchFormats are the formats answer writes blocks of: the seed dialects
// (an Axon write_file act, an Axon replace act, an autocoder JSON block, an
// MCP request) and the edit formats of FORMATS.md.
var benchFormats = []string{"axon", "axon-replace", "autocoder-json", "mcp",
	"apply_patch", "udiff", "aider", "cline", "editor", "whole"}

// answer builds an answer of about size bytes holding blocks instruction
// blocks of format (one of benchFormats; "seed": the four seed-dialect
// kinds in turn; "mixed": every format in turn), with prose between them and
// file content padding each to the size. An apply_patch envelope and a diff
// fence hold ten chunks (hunks) each, so that 100 of them are 1,000 hunks.
// It is the one generator of the 10 MB benchmarks.
func answer(format string, size, blocks int) []byte {
	var b strings.Builder
	b.Grow(size + 4096)
	line := "\tfmt.Println(\"the quick brown fox jumps over the lazy dog\") // 好的\n"
	body := strings.Repeat(line, max(1, (size/blocks-300)/len(line)))
	half := body[:len(body)/2]
	// A chunk of an apply_patch or diff block: a tenth of the padding in
	// context lines around one changed line.
	n := max(1, (size/blocks/10-200)/(len(line)+1))
	chunk := func(i int) string {
		return strings.Repeat(" "+line, n/2) + fmt.Sprintf("-\tx := %d\n+\tx := %d\n", i, i+1) + strings.Repeat(" "+line, n-n/2)
	}
	kinds := []string{format}
	switch format {
	case "seed":
		kinds = benchFormats[:4]
	case "mixed":
		kinds = benchFormats
	}
	for i := 0; i < blocks; i++ {
		fmt.Fprintf(&b, "Step %d: here is why the change is needed.\n\n", i)
		switch kinds[i%len(kinds)] {
		case "axon":
			fmt.Fprintf(&b, "~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nsrc/f%d.go\n~~~~~\n~~~~~go\n```go\n%s```\n~~~~~\n\n", i, body)
		case "axon-replace":
			fmt.Fprintf(&b, "~~~~~act\nreplace src/f%d.go\n~~~~~\n~~~~~\n%s~~~~~\n~~~~~\n%s~~~~~\n\n", i-1, half, half)
		case "autocoder-json":
			fmt.Fprintf(&b, "#####--\n{\"metadata\": {\"step_id\": \"s%d\", \"reason\": \"r\"}, \"type\": \"operate\", \"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"g%d.go\", \"file_content\": %q}]}\n--#####\n\n", i, i, body)
		case "mcp":
			fmt.Fprintf(&b, "```mcp-request\n{\"jsonrpc\":\"2.0\",\"id\":\"call-%d\",\"method\":\"tools/call\",\"params\":{\"name\":\"fs.write\",\"arguments\":{\"path\":\"h%d.go\",\"content\":%q}}}\n```\n\n", i, i, body)
		case "apply_patch":
			fmt.Fprintf(&b, "*** Begin Patch\n*** Update File: src/f%d.go\n", i)
			for k := 0; k < 10; k++ {
				fmt.Fprintf(&b, "@@ func f%d() {\n%s", i*10+k, chunk(i*10+k))
			}
			b.WriteString("*** End Patch\n\n")
		case "udiff":
			fmt.Fprintf(&b, "```diff\n--- a/src/f%d.go\n+++ b/src/f%d.go\n", i, i)
			for k := 0; k < 10; k++ {
				h := i*10 + k
				fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n%s", h*n, n+1, h*n, n+1, chunk(h))
			}
			b.WriteString("```\n\n")
		case "aider":
			fmt.Fprintf(&b, "src/f%d.go\n```go\n<<<<<<< SEARCH\n%s=======\n%s>>>>>>> REPLACE\n```\n\n", i, half, half)
		case "cline":
			fmt.Fprintf(&b, "<replace_in_file>\n<path>src/f%d.go</path>\n<diff>\n------- SEARCH\n%s=======\n%s+++++++ REPLACE\n</diff>\n</replace_in_file>\n\n", i, half, half)
		case "whole":
			fmt.Fprintf(&b, "src/f%d.go\n```go\n%s```\n\n", i, body)
		case "editor":
			fmt.Fprintf(&b, "{\"command\": \"str_replace\", \"path\": \"src/f%d.go\", \"old_str\": %q, \"new_str\": %q}\n\n", i, half, half)
		default:
			panic("answer: no format " + format)
		}
	}
	return []byte(b.String())
}

// benchBlocks is how many blocks a 10 MB benchmark answer of format holds:
// 1,000, or 100 apply_patch envelopes or diff fences of 10 hunks each.
func benchBlocks(format string) int {
	if format == "apply_patch" || format == "udiff" {
		return 100
	}
	return 1000
}

// BenchmarkParse10MB is the speed target of the readers (issue 19: a 10 MB
// answer reads in well under 100 ms): Parse over a 10 MB answer of each
// format, of the seed dialects in turn, and of every format in turn
// ("mixed"), each checked to yield one item per block; and over 1 MB of the
// mixed answer with the same blocks, so that the two show the cost grows
// with the text. Each prints its wall-clock ms/op and, on Unix, the CPU time
// per operation (cpu-ms/op, every thread, the garbage collector's too),
// which other load on the machine moves less. Run it with
//
//	go test -run '^$' -bench BenchmarkParse10MB -benchtime 5x -count 3 ./protocol/
func BenchmarkParse10MB(b *testing.B) {
	type run struct {
		name   string
		format string
		size   int
	}
	var runs []run
	for _, f := range append([]string{"axon", "autocoder-json", "mcp"}, benchFormats[4:]...) {
		runs = append(runs, run{f, f, 10 << 20})
	}
	runs = append(runs, run{"seed", "seed", 10 << 20}, run{"mixed", "mixed", 10 << 20}, run{"mixed/1MB", "mixed", 1 << 20})
	for _, r := range runs {
		blocks := benchBlocks(r.format)
		text := answer(r.format, r.size, blocks)
		b.Run(r.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			cpu0, cpuOK := cpuTime()
			for b.Loop() {
				if items := Parse(text); len(items) != blocks {
					b.Fatalf("%d items, want %d", len(items), blocks)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
			if cpu1, ok := cpuTime(); ok && cpuOK {
				b.ReportMetric(float64((cpu1-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			}
		})
	}
}

// BenchmarkDialect runs each registered reader alone over the 10 MB mixed
// answer, scanned once as Parse scans it (the scan is the "scan" run), to
// tell which one a slow BenchmarkParse10MB spends its time in.
func BenchmarkDialect(b *testing.B) {
	text := answer("mixed", 10<<20, 1000)
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			fence.NewText(text)
		}
	})
	t := fence.NewText(text)
	for _, d := range dialects {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				d.parse(t)
			}
		})
	}
}
