// Package pathpolicy holds the one path policy every path of a step
// passes, in a write mode (the files a step changes) and a read mode
// (reads, listings, searches, diffs, a program's working folder): inside the
// repository, not in .git, not in a submodule or another repository's work
// tree, no control characters or shell spellings, not through a symlink that
// leaves the repository, not denied by the configuration. Start with
// Policy.Resolve; fs.go holds the file system that reads and walkers see.
package pathpolicy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/autocoder/autocoder/gitops/gitpath"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/termsafe"
)

// RefusedError is a path the safety policy refuses (exit code 4).
type RefusedError struct {
	Path string // as the step wrote it
	Why  string
	Fix  string // what to do instead
}

func (e *RefusedError) Error() string { return fmt.Sprintf("refused %s: %s", ShowPath(e.Path), e.Why) }

// Hint says what to do instead.
func (e *RefusedError) Hint() string { return e.Fix }

// Class is step.ClassRefused.
func (e *RefusedError) Class() step.Class { return step.ClassRefused }

// ShowPath is a path as an error message shows it: as it is when that is
// plain printable text, else Go-quoted, so that a control character in a
// hostile path is seen, not obeyed, and a trailing space is visible.
func ShowPath(p string) string {
	q := strconv.Quote(p)
	if q[1:len(q)-1] == p && !strings.HasSuffix(p, " ") && p != "" {
		return p
	}
	return q
}

// Mode is what a path is resolved for.
type Mode int

const (
	// Write is the mode of the paths a step changes: never the root, never
	// through a symlink.
	Write Mode = iota
	// Read is the mode of reads, listings, searches, diffs and a program's
	// working folder: the root itself is allowed, and a symlink is followed
	// when it, and whatever it points to, stays inside the repository and
	// passes the policy there too.
	Read
)

// Policy decides which paths a step may touch.
type Policy struct {
	Root string // the worktree root, symlinks resolved
	// Deny reports whether the configuration denies a repository-relative
	// path, and by which pattern. Nil denies nothing.
	Deny func(rel string) (pattern string, denied bool)
	// Gitlink reports whether rel is a submodule in the index. Nil: none.
	Gitlink func(rel string) bool

	once sync.Once
	root *os.Root // opened on first use by FS
	err  error
}

// Resolve resolves a path for writing (see ResolveMode).
func (p *Policy) Resolve(raw string) (string, error) { return p.ResolveMode(raw, Write) }

// ResolveRead resolves a path for reading (see ResolveMode).
func (p *Policy) ResolveRead(raw string) (string, error) { return p.ResolveMode(raw, Read) }

// ResolveMode turns a path as a step wrote it (relative to the root, or
// absolute inside it) into a clean slash-separated repository-relative path
// ("." for the root in read mode), or refuses it with a *RefusedError that
// says why and what to write instead.
//
// In write mode a symlink on the way is refused; a symlink as the last
// component is returned as is, and callers that write content refuse it
// with NotSymlink. In read mode symlinks are followed while they stay
// inside, and the path they lead to passes the policy too.
func (p *Policy) ResolveMode(raw string, mode Mode) (string, error) {
	refuse := func(why, fix string) error { return &RefusedError{Path: raw, Why: why, Fix: fix} }
	const relFix = "give the path relative to the repository root, with / between folders, as in src/main.go"
	if strings.TrimSpace(raw) == "" {
		return "", refuse("the path is empty", "give the file's path relative to the repository root")
	}
	if err := spelling(raw, refuse); err != nil {
		return "", err
	}
	name := raw
	if runtime.GOOS == "windows" {
		name = strings.ReplaceAll(name, `\`, "/")
	}
	var rel string
	if filepath.IsAbs(raw) {
		r, err := filepath.Rel(p.Root, filepath.Clean(raw))
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", refuse("the absolute path is outside the repository "+p.Root,
				"use a path inside "+p.Root+", or one relative to it")
		}
		rel = filepath.ToSlash(r)
	} else {
		if hasDriveLetter(name) {
			return "", refuse("it starts with a drive letter ("+name[:2]+"), which names another disk, not a folder of the repository", relFix)
		}
		rel = path.Clean(name)
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return "", refuse("the path leaves the repository", "use a path inside the repository, relative to its root")
		}
	}
	if rel == "." || rel == "" {
		if mode == Read {
			return ".", nil
		}
		return "", refuse("the path is the repository root itself", "name a file or folder inside the repository")
	}
	if err := p.inside(rel, refuse); err != nil {
		return "", err
	}
	if mode == Write {
		// A symlink on the way (the last component may be one: see NotSymlink).
		parts := strings.Split(rel, "/")
		for i := 0; i < len(parts)-1; i++ {
			sub := strings.Join(parts[:i+1], "/")
			fi, err := os.Lstat(p.abs(sub))
			if err != nil {
				break // the rest does not exist yet
			}
			if fi.Mode()&os.ModeSymlink != 0 {
				return "", refuse(sub+" is a symbolic link; autocoder never writes through one",
					"use the path the link points to, if it is inside the repository")
			}
		}
		return rel, nil
	}
	// Read mode: where the path really leads must pass the policy too.
	real, err := p.realRel(rel)
	if err != nil {
		return "", refuse(err.Error(), "read files inside the repository only; a link that points outside it is not followed")
	}
	if real != rel {
		if err := p.inside(real, func(why, fix string) error {
			return refuse("it is a symbolic link to "+ShowPath(real)+", and "+why, fix)
		}); err != nil {
			return "", err
		}
	}
	return rel, nil
}

// spelling refuses the spellings that mean something else to a shell or to
// another operating system, and that would otherwise become literal names.
func spelling(raw string, refuse func(why, fix string) error) error {
	const relFix = "give the path relative to the repository root, with / between folders, as in src/main.go"
	if !utf8.ValidString(raw) {
		return refuse("the path is not valid UTF-8", "give the path as UTF-8 text")
	}
	for _, r := range raw {
		if IsControl(r) {
			return refuse(fmt.Sprintf("the path holds a control character (%U); file names with one are refused because a terminal or a shell would act on it", r),
				"give a path of printable characters only")
		}
	}
	switch {
	case strings.HasPrefix(raw, "~"):
		return refuse("it starts with ~, which a shell expands to a home folder; autocoder does not, and would make a folder literally named ~", relFix)
	case strings.HasPrefix(raw, `\\`):
		return refuse(`it is a Windows network path (\\server\share), outside the repository`, relFix)
	case runtime.GOOS != "windows" && strings.ContainsRune(raw, '\\'):
		return refuse(`it holds \, a Windows folder separator; here it would become part of a file name (and ..\ or .git\ would mean something else on Windows)`, relFix)
	}
	for i := 0; i+1 < len(raw); i++ {
		if raw[i] == '$' {
			if c := raw[i+1]; c == '{' || c == '(' || c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
				return refuse("it holds "+raw[i:min(len(raw), i+8)]+"…, a shell variable or substitution; autocoder does not expand it and would make a file literally named so",
					"write the path out in full, relative to the repository root")
			}
		}
	}
	return nil
}

// IsControl reports the runes a path must not carry (termsafe.IsControl:
// one notion of a control character for paths and for the terminal).
func IsControl(r rune) bool { return termsafe.IsControl(r) }

func hasDriveLetter(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z')
}

// inside applies the checks on a clean repository-relative path: .git, a
// submodule or another repository's work tree on the way, a deny pattern.
func (p *Policy) inside(rel string, refuse func(why, fix string) error) error {
	// Every spelling of .git that git refuses, also after a "\".
	if gitpath.HasDotGit(rel) {
		return refuse("the path is inside .git, which holds git's own data", "steps may not touch .git; change files of the worktree only")
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		sub := strings.Join(parts[:i+1], "/")
		// A submodule anywhere on the path, whether or not it is checked out.
		if p.Gitlink != nil && p.Gitlink(sub) {
			return refuse(sub+" is a submodule", "change files of a submodule inside the submodule's own repository")
		}
		// Another repository's work tree: a nested clone, a linked worktree,
		// a submodule git does not know of. Its files are not ours to
		// change or show.
		if gitpath.IsWorkTree(p.abs(sub)) {
			return refuse(sub+" is another repository's work tree (it has its own .git)",
				"change its files in that repository, not through this one")
		}
	}
	if p.Deny != nil {
		if pat, denied := p.Deny(rel); denied {
			return refuse("the configuration denies it (pattern "+pat+" in autocoder.toml [paths] deny)",
				"leave this file alone, or change the deny list in autocoder.toml")
		}
	}
	return nil
}

// realRel is where rel leads once every symlink on it is followed, relative
// to the root; an error when that is outside. A part that does not exist
// yet is taken as written.
func (p *Policy) realRel(rel string) (string, error) {
	parts := strings.Split(rel, "/")
	cur := p.Root
	for i, c := range parts {
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				cur = filepath.Join(append([]string{cur}, parts[i:]...)...)
				break
			}
			return "", err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			r, err := filepath.EvalSymlinks(next)
			if err != nil {
				return "", fmt.Errorf("%s is a symbolic link that leads nowhere (%v)", strings.Join(parts[:i+1], "/"), err)
			}
			next = r
		}
		cur = next
		if !within(p.Root, cur) {
			return "", fmt.Errorf("%s is a symbolic link to %s, outside the repository", strings.Join(parts[:i+1], "/"), ShowPath(cur))
		}
	}
	r, err := filepath.Rel(p.Root, cur)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(r), nil
}

func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

func (p *Policy) abs(rel string) string { return filepath.Join(p.Root, filepath.FromSlash(rel)) }

// Dir resolves a program's working folder: read mode, and it must be a
// folder. It returns the folder's real absolute path, so that the program
// starts inside the repository even when the path went through a link.
func (p *Policy) Dir(raw string) (string, error) {
	rel, err := p.ResolveRead(raw)
	if err != nil {
		return "", err
	}
	real, err := p.realRel(rel)
	if err != nil {
		return "", &RefusedError{Path: raw, Why: err.Error(), Fix: "run programs in a folder inside the repository"}
	}
	abs := p.abs(real)
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", &RefusedError{Path: raw, Why: "it is not a folder of the repository", Fix: "give cwd as an existing folder, relative to the repository root"}
	}
	return abs, nil
}

// NotSymlink refuses to write content to a path that is a symbolic link:
// writing would change the file it points to, possibly outside the repository.
func (p *Policy) NotSymlink(rel string) error {
	fi, err := os.Lstat(p.abs(rel))
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return &RefusedError{Path: rel, Why: "it is a symbolic link; autocoder never writes through one",
			Fix: "write to the file the link points to, if it is inside the repository"}
	}
	return nil
}
