package reads

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io/fs"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textkind"
)

// readFile returns a file's content, or the part the options select:
//   - range head:N / tail:N / start:end counts characters (runes) of UTF-8
//     text, and bytes with the base64 and hex encodings; start:end is
//     0-based with end excluded (JavaScript's slice), and an end past the
//     content stops at the content's end;
//   - line N and lines a-b (1-based, inclusive) give the text of those lines
//     without the newline that ends the last one; an end past the last line
//     stops there, a start past it is an error;
//   - includeMeta puts a header before the content:
//     "path: P\nsize: BYTES\nsha256: HEX\nlines: N\nmtime: RFC3339\n---\n"
//     (mtime left out when the file system has none; size, sha256 and lines
//     describe the whole file, not the selected part).
//
// Text that holds a NUL byte is refused unless an encoding is given.
// Invalid UTF-8 without NUL is passed through as it is.
//
// A file over max is read as a stream, and only when the request names a
// part of it (readPart); a whole read of it is refused from its size.
func readFile(fsys fs.FS, name string, o *step.ReadOptions, max int64) (string, error) {
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return "", notFound(name, err)
	}
	if info.IsDir() {
		return "", &step.OptionError{Option: "path", Value: name, Reason: "is a directory",
			Fix: "it is a folder: list it, then read the files in it one by one"}
	}
	if err := notRegular(name, info); err != nil {
		return "", err
	}
	if info.Size() > max {
		if o.Range == "" && o.Line == 0 && o.Lines == "" {
			return "", overLimit(name, info.Size(), max, "read a part of it: range (head:N, tail:N, start:end), line or lines")
		}
		return readPart(fsys, name, info, o, max)
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return "", notFound(name, err)
	}
	var out string
	switch o.Encoding {
	case "base64", "hex":
		part := data
		if o.Range != "" {
			sp, _ := step.ParseRange(o.Range) // checked by step.CheckReadOptions
			part = cut(data, len(data), sp, func(i int) int { return i })
		}
		if o.Encoding == "base64" {
			out = base64.StdEncoding.EncodeToString(part)
		} else {
			out = hex.EncodeToString(part)
		}
	default:
		if textkind.Binary(data, 0) >= 0 {
			return "", binaryErr(name)
		}
		out, err = selectText(data, o)
		if err != nil {
			return "", err
		}
	}
	if o.IncludeMeta {
		out = metaHeader(name, data, info.ModTime()) + out
	}
	return out, nil
}

// notRegular refuses what is neither a folder nor a regular file: a named
// pipe nobody writes to would be read forever (and autocoder with it), a
// device may never end; the search skips them the same way.
func notRegular(name string, info fs.FileInfo) error {
	if info.Mode().IsRegular() {
		return nil
	}
	return &step.OptionError{Option: "path", Value: name, Reason: "is not a regular file (a pipe, a device or a socket)",
		Fix: "read regular files only"}
}

func selectText(data []byte, o *step.ReadOptions) (string, error) {
	switch {
	case o.Range != "":
		sp, _ := step.ParseRange(o.Range)
		// offsets[i] is the byte offset of rune i; offsets[n] = len(data).
		n := utf8.RuneCount(data)
		offsets := make([]int, 0, n+1)
		for i := range string(data) {
			offsets = append(offsets, i)
		}
		offsets = append(offsets, len(data))
		return string(cut(data, len(offsets)-1, sp, func(i int) int { return offsets[i] })), nil
	case o.Line != 0:
		return lineSpan(data, o.Line, o.Line, "line")
	case o.Lines != "":
		first, last, _ := step.ParseLines(o.Lines)
		return lineSpan(data, first, last, "lines")
	}
	return string(data), nil
}

// cut applies a span to n units (runes or bytes); at maps a unit index to a
// byte offset in data.
func cut(data []byte, n int, sp step.Range, at func(int) int) []byte {
	start, end := 0, n
	switch sp.Kind {
	case "head":
		end = min(sp.End, n)
	case "tail":
		start = max(n-sp.End, 0)
	default:
		start, end = min(sp.Start, n), min(sp.End, n)
	}
	return data[at(start):at(end)]
}

// splitLines splits after each "\n"; a final newline does not start another
// line, so "a\nb\n" has two lines and "" has none.
func splitLines(data []byte) [][]byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func lineSpan(data []byte, first, last int, option string) (string, error) {
	lines := splitLines(data)
	if first > len(lines) {
		value := fmt.Sprint(first)
		if option == "lines" {
			value = fmt.Sprintf("%d-%d", first, last)
		}
		return "", &step.OptionError{Option: option, Value: value,
			Reason: fmt.Sprintf("past the end: the file has %d lines", len(lines)),
			Fix:    fmt.Sprintf("ask for lines 1 to %d", len(lines))}
	}
	last = min(last, len(lines))
	s := string(bytes.Join(lines[first-1:last], nil))
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r"), nil
}

func metaHeader(name string, data []byte, mtime time.Time) string {
	sum := sha256.Sum256(data)
	var b strings.Builder
	fmt.Fprintf(&b, "path: %s\nsize: %d\nsha256: %x\nlines: %d\n", name, len(data), sum, len(splitLines(data)))
	if !mtime.IsZero() {
		fmt.Fprintf(&b, "mtime: %s\n", mtime.UTC().Format(time.RFC3339))
	}
	b.WriteString("---\n")
	return b.String()
}
