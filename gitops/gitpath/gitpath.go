// Package gitpath is the one test of whether a path names git's own data:
// every spelling of ".git" that git itself refuses to track or check out,
// on any file system it protects. It follows git's verify_path
// (read-cache.c), is_ntfs_dotgit (path.c) and is_hfs_dotgit (utf8.c) with
// both core.protectNTFS and core.protectHFS on, whatever the system: a
// repository is cloned onto other systems than the one that wrote it, and
// a path that is ".git" on a Mac or on Windows reaches its hooks there.
//
// It is a leaf of gitops that links no git library, so that the dialect
// readers (which must not link go-git) and the path policy can share it.
// Start with Verify (a whole repository-relative path, as git checks an
// index entry), HasDotGit (any name of a path) and IsDotGit (one name, as a
// directory walker sees it).
package gitpath

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// IsDotGit reports whether name, one path component, is ".git" on some
// file system git protects: in any letter case; on NTFS also followed by
// dots and spaces (which NTFS drops), by an alternate data stream
// (".git::$INDEX_ALLOCATION"), or as its 8.3 short name "git~1"; on HFS+
// also with code points HFS+ ignores (".g\u200cit"). A backslash ends the
// name, as it does on Windows, so ".git\hooks" is ".git".
func IsDotGit(name string) bool {
	return isNTFSDotGit(name) || isHFSDotGit(name) || isPlainDotGit(name)
}

// isPlainDotGit is verify_dotfile's rule, which applies everywhere: ".git"
// in any letter case, followed by nothing or a separator.
func isPlainDotGit(name string) bool {
	return len(name) >= 4 && strings.EqualFold(name[:4], ".git") && (len(name) == 4 || isSep(name[4]))
}

// isSep is a directory separator on some file system git protects: "/"
// everywhere, "\" on Windows.
func isSep(c byte) bool { return c == '/' || c == '\\' }

// isNTFSDotGit is git's is_ntfs_dotgit: ".git" or "git~1", in any letter
// case, followed only by spaces and periods up to the end, a separator or
// the ":" of a stream name.
func isNTFSDotGit(name string) bool {
	var rest string
	switch {
	case len(name) >= 4 && name[0] == '.' && strings.EqualFold(name[1:4], "git"):
		rest = name[4:]
	case len(name) >= 5 && strings.EqualFold(name[:3], "git") && name[3:5] == "~1":
		rest = name[5:]
	default:
		return false
	}
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '/', '\\', ':':
			return true
		case '.', ' ':
		default:
			return false
		}
	}
	return true
}

// isHFSDotGit is git's is_hfs_dotgit: ".git" in any letter case once the
// code points HFS+ ignores are dropped, followed by nothing or "/".
// Invalid UTF-8 is never ".git" there (git's next_hfs_char gives up).
func isHFSDotGit(name string) bool {
	for _, want := range ".git" {
		r, rest, ok := nextHFSChar(name)
		if !ok || r > 127 || toLower(r) != want {
			return false
		}
		name = rest
	}
	r, _, ok := nextHFSChar(name)
	return ok && (r == 0 || r == '/')
}

// nextHFSChar returns the next code point of s that HFS+ does not ignore
// (0 at the end), and the rest of s; ok is false on invalid UTF-8.
func nextHFSChar(s string) (r rune, rest string, ok bool) {
	for {
		if s == "" {
			return 0, "", true
		}
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n <= 1 {
			return 0, "", false
		}
		s = s[n:]
		if !hfsIgnored(r) {
			return r, s, true
		}
	}
}

// hfsIgnored is the list of code points git's next_hfs_char skips: the
// zero-width joiners, the directional marks and embeddings, the deprecated
// format characters and the byte-order mark.
func hfsIgnored(r rune) bool {
	return r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff
}

func toLower(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

// HasDotGit reports whether any name in p is a spelling of .git (IsDotGit),
// a name starting at the beginning of p or after a "/" or a "\".
func HasDotGit(p string) bool {
	for i := 0; i < len(p); i++ {
		if (i == 0 || isSep(p[i-1])) && IsDotGit(p[i:]) {
			return true
		}
	}
	return false
}

// ErrDotGit is the error Verify wraps for a path inside .git.
var ErrDotGit = errors.New("git does not track a path inside .git (in any spelling)")

// Verify applies git's verify_path to a slash-separated path relative to
// the work tree root, with core.protectNTFS and core.protectHFS on: no
// drive prefix or leading "/", no empty, "." or ".." component, no
// component that IsDotGit (checked after every "/" and, as on Windows,
// after every "\"), and for a symbolic link (symlink true) no ".gitmodules"
// in any of those spellings either, because git reads that file without
// following links. A path inside .git gives an error that wraps ErrDotGit.
func Verify(p string, symlink bool) error {
	if p == "" {
		return errors.New("empty path")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return fmt.Errorf("path %q contains a NUL byte", p)
	}
	if len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]) {
		return fmt.Errorf("path %q starts with a drive letter", p)
	}
	// Every position that starts a name: the start, after "/", and after
	// "\" (a separator on Windows, where core.protectNTFS matters).
	for i := 0; i <= len(p); i++ {
		if i > 0 && !isSep(p[i-1]) {
			continue
		}
		name := p[i:]
		if IsDotGit(name) {
			return fmt.Errorf("path %q: %w", p, ErrDotGit)
		}
		if symlink && isDotGitmodules(name) {
			return fmt.Errorf("path %q: a symbolic link named .gitmodules (in any spelling) is refused by git", p)
		}
		if i > 0 && p[i-1] == '\\' {
			continue // "\" ends a name for the .git test only, as in git
		}
		end := strings.IndexByte(name, '/')
		if end < 0 {
			end = len(name)
		}
		if c := name[:end]; c == "" || c == "." || c == ".." {
			return fmt.Errorf("path %q: git does not track a path with an empty, \".\" or \"..\" component", p)
		}
	}
	return nil
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isDotGitmodules is git's is_ntfs_dotgitmodules or is_hfs_dotgitmodules,
// or ".gitmodules" in any letter case.
func isDotGitmodules(name string) bool {
	return isNTFSDotGeneric(name, "gitmodules", "gi7eba") || isHFSDotGeneric(name, "gitmodules")
}

// isHFSDotGeneric is is_hfs_dot_generic: "." then needle in any letter
// case, ignoring HFS+'s ignored code points, then the end or "/".
func isHFSDotGeneric(name, needle string) bool {
	for _, want := range "." + needle {
		r, rest, ok := nextHFSChar(name)
		if !ok || r > 127 || toLower(r) != want {
			return false
		}
		name = rest
	}
	r, _, ok := nextHFSChar(name)
	return ok && (r == 0 || r == '/')
}

// isNTFSDotGeneric is git's is_ntfs_dot_generic: "."+needle, its regular
// 8.3 short name (the first six letters, "~" and 1 to 4) or its fall-back
// short name (shortPrefix, "~" and digits), each followed only by spaces
// and periods up to the end or ":".
func isNTFSDotGeneric(name, needle, shortPrefix string) bool {
	onlySpacesAndPeriods := func(i int) bool {
		for ; i < len(name); i++ {
			switch name[i] {
			case ':':
				return true
			case ' ', '.':
			default:
				return false
			}
		}
		return true
	}
	if len(name) >= 1+len(needle) && name[0] == '.' && strings.EqualFold(name[1:1+len(needle)], needle) {
		return onlySpacesAndPeriods(1 + len(needle))
	}
	if len(name) >= 8 && strings.EqualFold(name[:6], needle[:6]) && name[6] == '~' && name[7] >= '1' && name[7] <= '4' {
		return onlySpacesAndPeriods(8)
	}
	sawTilde := false
	i := 0
	for ; i < 8; i++ {
		if i >= len(name) {
			return false
		}
		c := name[i]
		switch {
		case sawTilde:
			if c < '0' || c > '9' {
				return false
			}
		case c == '~':
			i++
			if i >= len(name) || name[i] < '1' || name[i] > '9' {
				return false
			}
			sawTilde = true
		case i >= 6:
			return false
		case c&0x80 != 0:
			return false
		case byte(toLower(rune(c))) != shortPrefix[i]:
			return false
		}
	}
	return onlySpacesAndPeriods(i)
}

// IsWorkTree reports whether the folder dir is the top of a repository's
// work tree: it holds a .git, a folder (a clone) or a file naming one (a
// linked worktree, a submodule's checkout).
func IsWorkTree(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}
