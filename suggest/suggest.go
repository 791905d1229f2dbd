// Package suggest finds the name that a mistyped one most likely meant: the
// one "did you mean" of every message that names an unknown key, field,
// act, tool, command or flag (config keys, autocoder JSON fields, Axon
// acts, and the CLI).
//
// Closest is the whole API. It imports nothing of ours, so every layer can
// use it.
package suggest

import (
	"strings"
	"unicode/utf8"
)

// Closest returns the candidate that word most likely meant, or "" when
// none is close enough to be worth saying. In order of preference:
//
//   - a candidate equal to word when letter case and the separators
//     "_", "-", "." and " " are ignored ("WriteFile" for write_file);
//   - a candidate at a small edit distance (one edit for words of up to
//     five characters, two up to twelve, three beyond); for dotted names,
//     one whose last part is word's last part ("apply.max_output_bytes"
//     for programs.max_output_bytes); for plain names, one that contains
//     word or is contained in it as whole parts between separators (three
//     characters at least: "write" for write_file, never move_file for
//     remove_file). These two count as one and a half edits, so a one-edit
//     typo wins over them and they over two edits.
//
// Of equally near candidates the first in the list wins, so callers pass
// them in the order they want shown.
func Closest(word string, candidates []string) string {
	w := normalize(word)
	if w == "" {
		return ""
	}
	for _, c := range candidates {
		if normalize(c) == w {
			return c
		}
	}
	limit := 3
	switch n := utf8.RuneCountInString(w); {
	case n <= 5:
		limit = 1
	case n <= 12:
		limit = 2
	}
	// Scores are in half edits, so that the two looser rules rank after
	// a true one-edit typo and the last-part rule before containment.
	best, bestD := "", max(2*limit, 3)+1
	for _, c := range candidates {
		lw, lc := strings.ToLower(word), strings.ToLower(c)
		d := 2 * distance(lw, lc)
		dotted := strings.Contains(word, ".") && strings.Contains(c, ".")
		if dotted && lastPart(word) == lastPart(c) {
			d = min(d, 3)
		}
		if !strings.Contains(word, ".") && !strings.Contains(c, ".") && len(w) >= 3 && len(normalize(c)) >= 3 &&
			(containsPart(lc, lw) || containsPart(lw, lc)) {
			d = min(d, 3)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// containsPart reports whether short occurs in long between separators (or
// its ends): "path" in "file_path", "write" in "write_file", but not
// "move_file" in "remove_file".
func containsPart(long, short string) bool {
	for i := 0; ; {
		j := strings.Index(long[i:], short)
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len(short)
		if (at == 0 || isSep(long[at-1])) && (end == len(long) || isSep(long[end])) {
			return true
		}
		i = at + 1
	}
}

func isSep(c byte) bool { return c == '_' || c == '-' || c == '.' || c == ' ' }

// normalize lower-cases s and drops the separators people and models mix.
func normalize(s string) string {
	return strings.NewReplacer("_", "", "-", "", ".", "", " ", "").Replace(strings.ToLower(s))
}

// lastPart is the part of a dotted name after its last dot, lower case.
func lastPart(s string) string {
	return strings.ToLower(s[strings.LastIndexByte(s, '.')+1:])
}

// distance is the Levenshtein distance between a and b in characters,
// computed in two rows.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
