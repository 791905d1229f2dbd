package config

import (
	"errors"
	"path"
	"path/filepath"
	"strings"
)

// Denied reports whether relpath (relative to the repository root, "/" or
// the OS separator) matches the [paths] deny patterns, and the pattern that
// decided. The rules follow .gitignore:
//
//   - A pattern without "/" (other than a trailing one) matches a file or
//     directory of that name at any depth: "*.pem", ".env".
//   - A pattern with a "/" at the start or in the middle is relative to the
//     root: "/autocoder.toml", "config/prod/*.yaml".
//   - "**" matches any number of directories: "**/secrets", "a/**/b";
//     a trailing "/**" matches everything inside: "secrets/**".
//   - A trailing "/" matches directories only: "build/" denies every path
//     inside a directory named build.
//   - "!" re-allows what an earlier pattern denied; the last matching pattern
//     decides. Unlike git, a "!" pattern re-allows even inside a denied
//     directory, because the list is read per path, not per directory walk.
//
// A path inside a denied directory is denied. Matching ignores letter case:
// on a case-insensitive file system ".ENV" is the same file as ".env", and a
// deny list must not be bypassed by spelling.
//
// When no pattern matches, Denied returns "", false. When a "!" pattern
// decides, it returns that pattern and false.
func (c Config) Denied(relpath string) (pattern string, denied bool) {
	comps := splitPath(relpath)
	if len(comps) == 0 {
		return "", false
	}
	for _, raw := range c.Paths.Deny {
		p, err := compileDeny(raw)
		if err != nil {
			// Load validates every pattern; a Config built by hand with a bad
			// pattern denies rather than silently allowing.
			pattern, denied = raw, true
			continue
		}
		if p.matches(comps) {
			pattern, denied = raw, !p.negate
		}
	}
	return pattern, denied
}

// splitPath cleans relpath into lower-case components. The root itself
// gives none.
func splitPath(relpath string) []string {
	p := path.Clean("/" + filepath.ToSlash(relpath))
	if p == "/" {
		return nil
	}
	return strings.Split(strings.ToLower(p[1:]), "/")
}

// denyPattern is one compiled deny pattern.
type denyPattern struct {
	negate   bool
	dirOnly  bool     // trailing "/": only what is inside a match is denied
	anchored bool     // relative to the root rather than any depth
	segs     []string // lower case; "**" is its own segment
}

var errEmptyPattern = errors.New("the pattern is empty")

// compileDeny reads one deny pattern; the error says what is wrong with it.
func compileDeny(raw string) (denyPattern, error) {
	var p denyPattern
	s := raw
	switch {
	case strings.HasPrefix(s, "!"):
		p.negate = true
		s = s[1:]
	case strings.HasPrefix(s, `\!`):
		s = s[1:] // a literal "!" at the start of a name
	}
	if strings.HasSuffix(s, "/") {
		p.dirOnly = true
		s = strings.TrimRight(s, "/")
	}
	if strings.Contains(s, "/") {
		p.anchored = true
		s = strings.TrimLeft(s, "/")
	}
	if s == "" {
		return p, errEmptyPattern
	}
	for _, seg := range strings.Split(strings.ToLower(s), "/") {
		if seg == "" || seg == "." || seg == ".." {
			return p, errors.New("a pattern cannot hold an empty, \".\" or \"..\" part")
		}
		if seg != "**" {
			if _, err := path.Match(seg, ""); err != nil {
				return p, errors.New("malformed glob (an unclosed [ or a trailing \\)")
			}
		}
		p.segs = append(p.segs, seg)
	}
	if !p.anchored && p.segs[0] == "**" {
		// "**" alone: everything.
		p.anchored = true
	}
	return p, nil
}

// matches reports whether the pattern denies the path with these
// components: the pattern matches the path or a directory above it.
func (p denyPattern) matches(comps []string) bool {
	last := len(comps)
	if p.dirOnly {
		last-- // a directory pattern matches only proper ancestors
	}
	if !p.anchored {
		for _, c := range comps[:max(last, 0)] {
			if ok, _ := path.Match(p.segs[0], c); ok {
				return true
			}
		}
		return false
	}
	ok := matchPrefixes(p.segs, comps[:max(last, 0)])
	for k := 1; k < len(ok); k++ {
		if ok[k] {
			return true
		}
	}
	return false
}

// matchPrefixes reports, for each k, whether segs match exactly comps[:k].
// "**" matches zero or more components, except at the end where it matches
// one or more (as in git, "a/**" is what is inside a, not a itself). It is
// one pass per segment over the components (segments × components): trying
// every split of the path at each "**" took exponential time.
func matchPrefixes(segs, comps []string) []bool {
	ok := make([]bool, len(comps)+1) // ok[k]: the segments so far match comps[:k]
	ok[0] = true
	next := make([]bool, len(comps)+1)
	for i, seg := range segs {
		if seg == "**" {
			// any earlier end extends over zero or more components; at the
			// end of the pattern, over one or more.
			seen := false
			for k := range ok {
				if i < len(segs)-1 {
					seen = seen || ok[k]
					next[k] = seen
				} else {
					next[k] = seen
					seen = seen || ok[k]
				}
			}
		} else {
			next[0] = false
			for k := 1; k < len(ok); k++ {
				next[k] = false
				if ok[k-1] {
					next[k], _ = path.Match(seg, comps[k-1])
				}
			}
		}
		ok, next = next, ok
	}
	return ok
}
