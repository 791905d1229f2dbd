package shellwords

import (
	"slices"
	"strings"
)

// reserved are the words bash reads as syntax where a command starts.
var reserved = []string{"case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if", "in",
	"select", "then", "time", "until", "while"}

// Join writes words as one command line that Simple (and /bin/sh) reads
// back as exactly those words: a word of only characters no shell treats
// specially is written as it is, any other in single quotes (a quote
// inside written '\”). It is how a message shows a program with its
// arguments as a line the user can copy, into an allow entry for one.
func Join(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = quote(w)
		// The first word is the command: a reserved word there opens a
		// compound command, and a = makes it an assignment.
		if i == 0 && out[i] == w && (slices.Contains(reserved, w) || strings.Contains(w, "=")) {
			out[i] = "'" + w + "'"
		}
	}
	return strings.Join(out, " ")
}

// quote is w as one shell word.
func quote(w string) string {
	if w == "" {
		return "''"
	}
	plain := true
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-./:=,+@%", c)) {
			plain = false
			break
		}
	}
	if plain {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
