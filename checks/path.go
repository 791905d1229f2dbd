// Package checks holds the preconditions a step can carry (check_files_exist,
// check_cwd_match, expectedSha256) and the path policy every touched path
// passes: inside the repository, not in .git, not through a symlink, not in
// a submodule, not denied by the configuration. Start with Policy.Resolve.
package checks

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// RefusedError is a path the safety policy refuses (exit code 4).
type RefusedError struct {
	Path string // as the step wrote it
	Why  string
	Fix  string // what to do instead
}

func (e *RefusedError) Error() string { return fmt.Sprintf("refused %s: %s", e.Path, e.Why) }

// Hint says what to do instead.
func (e *RefusedError) Hint() string { return e.Fix }

// Policy decides which paths a step may touch.
type Policy struct {
	Root string // the worktree root, symlinks resolved
	// Deny reports whether the configuration denies a repository-relative
	// path, and by which pattern. Nil denies nothing.
	Deny func(rel string) (pattern string, denied bool)
	// Gitlink reports whether rel is a submodule in the index. Nil: none.
	Gitlink func(rel string) bool
}

// Resolve turns a path as a step wrote it (relative to the root, or
// absolute inside it) into a clean slash-separated repository-relative path,
// or refuses it. It never follows a symlink: a symlink on the way is refused.
// A symlink as the last component is returned as is; callers that write
// content refuse it with NotSymlink.
func (p *Policy) Resolve(raw string) (string, error) {
	if strings.TrimSpace(raw) == "" {
		return "", &RefusedError{Path: raw, Why: "the path is empty", Fix: "give the file's path relative to the repository root"}
	}
	if strings.ContainsRune(raw, 0) {
		return "", &RefusedError{Path: raw, Why: "the path holds a NUL byte", Fix: "give a plain path"}
	}
	var rel string
	if filepath.IsAbs(raw) {
		r, err := filepath.Rel(p.Root, filepath.Clean(raw))
		if err != nil || r == ".." || strings.HasPrefix(r, "../") {
			return "", &RefusedError{Path: raw, Why: "the absolute path is outside the repository " + p.Root,
				Fix: "use a path inside " + p.Root + ", or one relative to it"}
		}
		rel = filepath.ToSlash(r)
	} else {
		rel = path.Clean(filepath.ToSlash(raw))
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return "", &RefusedError{Path: raw, Why: "the path leaves the repository", Fix: "use a path inside the repository, relative to its root"}
		}
	}
	if rel == "." || rel == "" {
		return "", &RefusedError{Path: raw, Why: "the path is the repository root itself", Fix: "name a file or folder inside the repository"}
	}
	parts := strings.Split(rel, "/")
	for _, c := range parts {
		if isDotGit(c) {
			return "", &RefusedError{Path: raw, Why: "the path is inside .git, which holds git's own data", Fix: "steps may not touch .git; change files of the worktree only"}
		}
	}
	// A submodule anywhere on the path, whether or not it is checked out.
	if p.Gitlink != nil {
		for i := range parts {
			if sub := strings.Join(parts[:i+1], "/"); p.Gitlink(sub) {
				return "", &RefusedError{Path: raw, Why: sub + " is a submodule", Fix: "change files of a submodule inside the submodule's own repository"}
			}
		}
	}
	// A symlink on the way (the last component may be one: see NotSymlink).
	for i := 0; i < len(parts)-1; i++ {
		sub := strings.Join(parts[:i+1], "/")
		fi, err := os.Lstat(filepath.Join(p.Root, filepath.FromSlash(sub)))
		if err != nil {
			break // the rest does not exist yet
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return "", &RefusedError{Path: raw, Why: sub + " is a symbolic link; autocoder never writes through one",
				Fix: "use the path the link points to, if it is inside the repository"}
		}
	}
	if p.Deny != nil {
		if pat, denied := p.Deny(rel); denied {
			return "", &RefusedError{Path: raw, Why: "the configuration denies it (pattern " + pat + " in autocoder.toml [paths] deny)",
				Fix: "leave this file alone, or change the deny list in autocoder.toml"}
		}
	}
	return rel, nil
}

// NotSymlink refuses to write content to a path that is a symbolic link:
// writing would change the file it points to, possibly outside the repository.
func (p *Policy) NotSymlink(rel string) error {
	fi, err := os.Lstat(filepath.Join(p.Root, filepath.FromSlash(rel)))
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return &RefusedError{Path: rel, Why: "it is a symbolic link; autocoder never writes through one",
			Fix: "write to the file the link points to, if it is inside the repository"}
	}
	return nil
}

// isDotGit reports whether a path component names .git on some file system
// git protects against (fsck's hasDotgit; core.protectNTFS and
// core.protectHFS): any letter case, NTFS's ignored trailing dots and spaces,
// its 8.3 short name GIT~1 and alternate streams (".git::$INDEX_ALLOCATION"),
// and HFS+'s ignored code points (".g\u200cit").
func isDotGit(c string) bool {
	var b strings.Builder
	for _, r := range c {
		if hfsIgnored(r) {
			continue
		}
		b.WriteRune(r)
	}
	s := strings.ToLower(b.String())
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, ". ")
	return s == ".git" || s == "git~1"
}

// hfsIgnored lists the code points HFS+ drops when it compares names, as
// git's is_hfs_dotgit does.
func hfsIgnored(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}
