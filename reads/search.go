package reads

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/autocoder/autocoder/gitops/gitpath"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textkind"
)

// defaultLimit is how many matching lines a search returns when Limit is 0.
const defaultLimit = 100

// maxShownLine caps the bytes shown of one line: a minified file's single
// line would otherwise fill the feedback.
const maxShownLine = 400

// search finds the lines under name that contain Query (or match it as a
// regular expression when Regex), in tree order (see list) and line order,
// so the same tree always gives the same output. The format is grep's:
//
//	path:LINE: text      a matching line
//	path-LINE- text      a context line (ContextLines before and after)
//	--                   between groups of lines that are not adjacent
//
// Paths are relative to the repository root. Files are skipped when they
// are binary (NUL in the first 8000 bytes), under .git, outside Glob (see
// matchGlob), without one of Extensions ("go" and ".go" both mean *.go,
// compared ignoring case), smaller than MinBytes, larger than MaxBytes (when
// set), or changed outside [MtimeFrom, MtimeTo]. After Limit matching lines
// (default 100) a last line says the output was cut.
//
// A file over max is not read: the output ends with a line naming the files
// skipped for their size.
func search(fsys fs.FS, name string, o *step.ReadOptions, max int64, advice string) (string, error) {
	match, err := matcher(o)
	if err != nil {
		return "", err
	}
	from, _ := step.ParseMtime("mtimeFrom", o.MtimeFrom, false)
	to, _ := step.ParseMtime("mtimeTo", o.MtimeTo, true)
	limit := o.Limit
	if limit == 0 {
		limit = defaultLimit
	}
	exts := make(map[string]bool, len(o.Extensions))
	for _, e := range o.Extensions {
		exts["."+strings.ToLower(strings.TrimPrefix(e, "."))] = true
	}

	root, err := fs.Stat(fsys, name)
	if err != nil {
		return "", notFound(name, err)
	}
	var b bytes.Buffer
	found, more := 0, 0
	cut := false
	var big []string
	visit := func(p string, d fs.DirEntry) error {
		rel := strings.TrimPrefix(p, prefixOf(name))
		if !root.IsDir() {
			rel = d.Name()
		}
		if o.Glob != "" && !matchGlob(o.Glob, d.Name(), rel) {
			return nil
		}
		if len(exts) > 0 && !exts[strings.ToLower(path.Ext(d.Name()))] {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // vanished while walking: nothing to search
		}
		if !info.Mode().IsRegular() || info.Size() < o.MinBytes || (o.MaxBytes > 0 && info.Size() > o.MaxBytes) {
			return nil
		}
		if (!from.IsZero() && info.ModTime().Before(from)) || (!to.IsZero() && info.ModTime().After(to)) {
			return nil
		}
		if info.Size() > max {
			big = append(big, p)
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil || textkind.Binary(data, textkind.GitSniff) >= 0 {
			return nil
		}
		if cut {
			more += count(data, match) // left out: counted, so the note says how many
			return nil
		}
		n, stop := grep(&b, p, data, match, o.ContextLines, limit-found)
		found += n
		if stop {
			cut = true
			more += count(data, match) - n
		}
		return nil
	}
	if !root.IsDir() {
		err = visit(name, fs.FileInfoToDirEntry(root))
	} else {
		err = fs.WalkDir(fsys, name, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil && p == name:
				return err
			case err != nil:
				return fs.SkipDir // unreadable subdirectory: search the rest
			case d.IsDir() && p != name && gitpath.IsDotGit(d.Name()):
				return fs.SkipDir
			case d.IsDir():
				return nil
			}
			return visit(p, d)
		})
	}
	if err != nil && err != fs.SkipAll {
		return "", notFound(name, err)
	}
	if len(big) > 0 {
		fmt.Fprintf(&b, "[not searched, over the limit of %d bytes ([apply] max_file_bytes): %s; read parts of them with range or lines]\n",
			max, strings.Join(big, ", "))
	}
	if cut {
		fmt.Fprintf(&b, "[stopped after %d matching lines (%d bytes): %d more left out; %s]\n", found, b.Len(), more,
			narrow(advice, "narrow path, glob or query, or raise limit"))
	}
	return b.String(), nil
}

// count is how many lines of data match.
func count(data []byte, match func([]byte) bool) int {
	n := 0
	for _, l := range splitLines(data) {
		if match(bytes.TrimRight(l, "\r\n")) {
			n++
		}
	}
	return n
}

func matcher(o *step.ReadOptions) (func([]byte) bool, error) {
	if o.Regex {
		re, err := regexp.Compile(o.Query)
		if err != nil {
			return nil, err // step.CheckReadOptions has already refused it
		}
		return re.Match, nil
	}
	q := []byte(o.Query)
	return func(line []byte) bool { return bytes.Contains(line, q) }, nil
}

// grep writes the matches of one file with their context, at most room
// matching lines and up to MaxOutputBytes in b. It reports how many it
// wrote and whether it stopped because room or bytes ran out while more
// lines matched.
func grep(b *bytes.Buffer, p string, data []byte, match func([]byte) bool, ctx, room int) (int, bool) {
	lines := splitLines(data)
	for i := range lines {
		lines[i] = bytes.TrimRight(lines[i], "\r\n")
	}
	found := 0
	shownTo := -1 // index of the last line written, -1 before any
	for i, line := range lines {
		if !match(line) {
			continue
		}
		if found == room {
			return found, true
		}
		mark := b.Len()
		start := max(i-ctx, shownTo+1)
		// grep's separator, with context only: between groups that are not
		// adjacent, and between files.
		if ctx > 0 && ((shownTo >= 0 && start > shownTo+1) || (shownTo < 0 && b.Len() > 0)) {
			b.WriteString("--\n")
		}
		for j := start; j < i; j++ {
			writeLine(b, p, j, '-', lines[j])
		}
		writeLine(b, p, i, ':', line)
		if b.Len() > MaxOutputBytes {
			// The bytes are used up: this match and its context are left
			// out whole.
			b.Truncate(mark)
			return found, true
		}
		found++
		shownTo = i
		// Context after is written lazily: stop early at the next match so
		// it is written as a match, not as context.
		for j := i + 1; j <= i+ctx && j < len(lines) && !match(lines[j]); j++ {
			writeLine(b, p, j, '-', lines[j])
			shownTo = j
		}
	}
	return found, false
}

func writeLine(b *bytes.Buffer, p string, i int, sep byte, line []byte) {
	if len(line) > maxShownLine {
		cut := maxShownLine
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = append(line[:cut:cut], " …"...)
	}
	fmt.Fprintf(b, "%s%c%d%c %s\n", p, sep, i+1, sep, line)
}
