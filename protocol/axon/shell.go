package axon

import (
	"fmt"
	"strings"
)

// quoteError is an inline argument list that cannot be split: a quote left
// open. Col is the 1-based column (in bytes, within the line) of the quote.
type quoteError struct {
	Quote byte
	Col   int
}

func (e *quoteError) Error() string {
	return fmt.Sprintf("unterminated %c quote", e.Quote)
}

// splitArgs splits an act line the way a POSIX shell splits words, without
// expansions: white space separates words; '…' keeps everything literally;
// "…" keeps everything but lets a backslash escape ", \, $ and `; outside
// quotes a backslash makes the next byte literal. `write_file "my file.txt"`
// therefore names one path with a space in it.
func splitArgs(s string) ([]string, error) {
	var (
		words []string
		w     strings.Builder
		in    bool // inside a word (an empty "" still makes a word)
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, &quoteError{'\'', i + 1}
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			start := i
			for i++; ; i++ {
				if i >= len(s) {
					return nil, &quoteError{'"', start + 1}
				}
				if s[i] == '"' {
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			in = true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			in = true
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}
