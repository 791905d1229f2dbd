//go:build unix

package protocol_test

import (
	"bytes"
	"strings"
)

// The edit formats' adversarial shapes, in TestAdversarialShapesAreLinear
// and BenchmarkAdversarial beside the dialects' (linear_unix_test.go):
// markers that open blocks never closed, tool calls never closed, path
// lines over fences, lines that start JSON values that never end.
func init() {
	rep := func(s string) func(n int) []byte {
		return func(n int) []byte { return bytes.Repeat([]byte(s), n) }
	}
	shapes = append(shapes,
		shape{"repeated <<<<<<< SEARCH", 2000, rep("<<<<<<< SEARCH\n"), parse},
		shape{"SEARCH and ======= pairs", 1000, rep("a.py\n<<<<<<< SEARCH\nx\n=======\n"), parse},
		shape{"SEARCH blocks never closed", 1000, rep("a.py\n```\n<<<<<<< SEARCH\nx\n"), parse},
		shape{"repeated <replace_in_file>", 2000, rep("<replace_in_file>\n<path>a</path>\n<diff>\n------- SEARCH\n"), parse},
		shape{"closed calls of broken blocks", 1000, rep("<apply_diff>\n<path>a</path>\n<diff>\n<<<<<<< SEARCH\n=======\n=======\n</diff>\n</apply_diff>\n"), parse},
		shape{"path lines over fences", 1000, rep("src/a.py\n```python\nx = 1\n```\n"), parse},
		shape{"fences without paths", 1000, rep("Example:\n```\n<<<<<<< SEARCH\n"), parse},
		shape{"lines opening JSON", 2000, rep("{\n[\n{\"command\": \"view\", \"path\":\n"), parse},
		shape{"editor calls", 1000, func(n int) []byte {
			return []byte(strings.Repeat(`{"command": "str_replace", "path": "a.py", "old_str": "x", "new_str": "y"}`+"\n", n))
		}, parse},
		shape{"deep [ lines", 2000, rep("[\n"), parse},
	)
}
