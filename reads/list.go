package reads

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/autocoder/autocoder/gitops/gitpath"
	"github.com/autocoder/autocoder/step"
)

// list returns the tree under name, one path per line, relative to the
// repository root (so each line can be passed back as a path), directories
// with a trailing "/", in tree order: a directory's entries sorted by name,
// each directory followed by what it holds. The root itself is not listed.
//
// Depth counts levels below name: 1 lists the entries of name, 2 also the
// entries of its subdirectories; 0 is unlimited (autocoder JSON's list_tree;
// the MCP reader sends fs.ls's default of 1 itself). Glob keeps only the
// entries whose name matches (see matchGlob) but still descends into
// directories that do not match. .git is never listed or entered. Limit
// caps the lines (0: MaxEntries), and MaxOutputBytes the bytes: a cut
// listing ends with a line saying how many entries were left out and how
// to ask for less (step.Op.Narrow, in the dialect's words).
// Listing a file gives that file's path.
func list(fsys fs.FS, name string, o *step.ReadOptions, advice string) (string, error) {
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return "", notFound(name, err)
	}
	if !info.IsDir() {
		return name + "\n", nil
	}
	var b strings.Builder
	count, more := 0, 0
	limit := o.Limit
	if limit == 0 {
		limit = MaxEntries
	}
	err = fs.WalkDir(fsys, name, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == name {
				return err
			}
			// An unreadable subdirectory is shown, not fatal: the rest of
			// the listing is still useful.
			fmt.Fprintf(&b, "%s/ [unreadable: %v]\n", p, err)
			return fs.SkipDir
		}
		if p == name {
			return nil
		}
		if d.IsDir() && gitpath.IsDotGit(d.Name()) {
			return fs.SkipDir
		}
		depth := strings.Count(strings.TrimPrefix(p, prefixOf(name)), "/") + 1
		if o.Glob == "" || matchGlob(o.Glob, d.Name(), strings.TrimPrefix(p, prefixOf(name))) {
			line := p + "\n"
			if d.IsDir() {
				line = p + "/\n"
			}
			if more > 0 || count >= limit || b.Len()+len(line) > MaxOutputBytes {
				more++ // counted, so the note says how many were left out
			} else {
				b.WriteString(line)
				count++
			}
		}
		if d.IsDir() && o.Depth > 0 && depth >= o.Depth {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return "", notFound(name, err)
	}
	if more > 0 {
		fmt.Fprintf(&b, "[listing cut at %d entries (%d bytes): %d more left out; %s]\n", count, b.Len(), more,
			narrow(advice, "list a subdirectory or use glob"))
	}
	return b.String(), nil
}

// prefixOf is what to strip from a walked path to make it relative to name.
func prefixOf(name string) string {
	if name == "." {
		return ""
	}
	return name + "/"
}

// matchGlob matches a pattern against an entry: a pattern without "/" is
// matched (path.Match) against the entry's name; "**/" at the start means
// "in any directory", so "**/*.ts" also matches by name; a pattern with
// "/" after that is matched against the path relative to the listed or
// searched directory, and with a leading "**/" against every tail of it.
func matchGlob(pattern, name, rel string) bool {
	anyDir := strings.HasPrefix(pattern, "**/")
	p := strings.TrimPrefix(pattern, "**/")
	if !strings.Contains(p, "/") {
		ok, _ := path.Match(p, name)
		return ok
	}
	if ok, _ := path.Match(p, rel); ok || !anyDir {
		return ok
	}
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' {
			if ok, _ := path.Match(p, rel[i+1:]); ok {
				return true
			}
		}
	}
	return false
}
