package reads

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textkind"
)

// DefaultMaxBytes is the size limit Run uses when given none: the default
// of [apply] max_file_bytes.
const DefaultMaxBytes = config.DefaultMaxFileBytes

// overLimit refuses a file over the limit before its content is read.
func overLimit(name string, size, max int64, fix string) error {
	return &step.OptionError{Option: "path", Value: name,
		Reason: fmt.Sprintf("the file has %d bytes, over the limit of %d ([apply] max_file_bytes)", size, max), Fix: fix}
}

// readPart is readFile for a file over the limit when the request names a
// part of it (range, line, lines): one pass over the file as a stream, which
// keeps only the part asked for (refused past max bytes) and, for
// includeMeta, the hash and the line count; memory stays within max
// whatever the file's size. Text is refused at its first NUL byte, as
// readFile refuses it. With an encoding and no includeMeta the pass ends
// once the part is read.
func readPart(fsys fs.FS, name string, info fs.FileInfo, o *step.ReadOptions, max int64) (string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", notFound(name, err)
	}
	defer f.Close()
	binary := o.Encoding == "base64" || o.Encoding == "hex"
	sel := newSelector(o, binary)
	hash := sha256.New()
	var lines int64
	var last byte
	r := bufio.NewReaderSize(f, 64<<10)
	buf := make([]byte, 64<<10)
	var carry []byte // the start of a rune cut at the end of a chunk
	for {
		n, rerr := r.Read(buf)
		chunk := buf[:n]
		if n > 0 {
			if !binary && textkind.Binary(chunk, 0) >= 0 {
				return "", binaryErr(name)
			}
			if o.IncludeMeta {
				hash.Write(chunk)
				lines += int64(bytes.Count(chunk, []byte("\n")))
				last = chunk[n-1]
			}
			if !sel.done() {
				in := chunk
				if len(carry) > 0 {
					in = append(carry, chunk...)
				}
				carry = sel.feed(in, rerr == io.EOF)
				if sel.size() > max {
					return "", &step.OptionError{Option: "range/line/lines", Value: o.Range + o.Lines,
						Reason: fmt.Sprintf("the part asked for has more than %d bytes ([apply] max_file_bytes)", max),
						Fix:    "ask for a smaller part"}
				}
			}
		}
		if rerr == io.EOF || sel.done() && binary && !o.IncludeMeta {
			break
		}
		if rerr != nil {
			return "", notFound(name, rerr)
		}
	}
	if len(carry) > 0 {
		sel.feed(carry, true)
	}
	out, err := sel.result(o)
	if err != nil {
		return "", err
	}
	switch o.Encoding {
	case "base64":
		out = base64.StdEncoding.EncodeToString([]byte(out))
	case "hex":
		out = hex.EncodeToString([]byte(out))
	}
	if o.IncludeMeta {
		if info.Size() > 0 && last != '\n' {
			lines++
		}
		var b strings.Builder
		fmt.Fprintf(&b, "path: %s\nsize: %d\nsha256: %x\nlines: %d\n", name, info.Size(), hash.Sum(nil), lines)
		if mt := info.ModTime(); !mt.IsZero() {
			fmt.Fprintf(&b, "mtime: %s\n", mt.UTC().Format(time.RFC3339))
		}
		b.WriteString("---\n")
		out = b.String() + out
	}
	return out, nil
}

// selector keeps the part of a stream a read asks for: units (bytes, or
// runes of UTF-8 text) start:end, head:N or tail:N, or lines first..last.
type selector struct {
	units       bool // a range; otherwise lines
	bytes       bool // units are bytes
	kind        string
	start, end  int64 // units [start, end); for tail, end is N
	first, last int64 // lines, 1-based, inclusive
	n           int64 // units or lines seen
	lineDone    bool  // the current line ended (lines mode)
	keep        []byte
	tailStarts  []int // for tail: the offset in keep of each unit kept
}

func newSelector(o *step.ReadOptions, binary bool) *selector {
	s := &selector{bytes: binary}
	switch {
	case o.Range != "":
		sp, _ := step.ParseRange(o.Range) // checked by step.CheckReadOptions
		s.units, s.kind, s.start, s.end = true, sp.Kind, int64(sp.Start), int64(sp.End)
		if sp.Kind == "head" {
			s.kind, s.start = "slice", 0
		}
	case o.Line != 0:
		s.first, s.last = int64(o.Line), int64(o.Line)
	default:
		a, b, _ := step.ParseLines(o.Lines)
		s.first, s.last = int64(a), int64(b)
	}
	return s
}

// done: nothing after this point can be part of the answer.
func (s *selector) done() bool {
	if s.units {
		return s.kind == "slice" && s.n >= s.end
	}
	return s.n >= s.last && s.lineDone
}

func (s *selector) size() int64 { return int64(len(s.keep)) }

// feed takes the next piece of the stream and returns what it could not
// use yet: the start of a rune that the next piece completes.
func (s *selector) feed(p []byte, eof bool) []byte {
	if !s.units {
		for len(p) > 0 && !s.done() {
			if s.lineDone || s.n == 0 {
				s.n++
				s.lineDone = false
			}
			i := bytes.IndexByte(p, '\n')
			seg := p
			if i >= 0 {
				seg = p[:i+1]
			}
			if s.n >= s.first && s.n <= s.last {
				s.keep = append(s.keep, seg...)
			}
			s.lineDone = i >= 0
			p = p[len(seg):]
		}
		return nil
	}
	if s.bytes {
		s.feedBytes(p)
		return nil
	}
	for i := 0; i < len(p); {
		if !eof && !utf8.FullRune(p[i:]) {
			return append([]byte(nil), p[i:]...)
		}
		_, size := utf8.DecodeRune(p[i:])
		unit := p[i : i+size]
		switch s.kind {
		case "slice":
			if s.n >= s.end {
				return nil
			}
			if s.n >= s.start {
				s.keep = append(s.keep, unit...)
			}
		case "tail":
			if s.end == 0 {
				break
			}
			s.tailStarts = append(s.tailStarts, len(s.keep))
			s.keep = append(s.keep, unit...)
			// Drop the front in place now and then: memory stays about
			// twice the part, and the copying is spread over the stream.
			if over := int64(len(s.tailStarts)) - s.end; over > s.end+64<<10 {
				cut := s.tailStarts[over]
				s.keep = s.keep[:copy(s.keep, s.keep[cut:])]
				s.tailStarts = s.tailStarts[:copy(s.tailStarts, s.tailStarts[over:])]
				for j := range s.tailStarts {
					s.tailStarts[j] -= cut
				}
			}
		}
		s.n++
		i += size
	}
	return nil
}

// feedBytes is feed for units that are bytes, a piece at a time.
func (s *selector) feedBytes(p []byte) {
	from, to := s.n, s.n+int64(len(p))
	s.n = to
	switch s.kind {
	case "slice":
		a, b := max(s.start, from), min(s.end, to)
		if a < b {
			s.keep = append(s.keep, p[a-from:b-from]...)
		}
	case "tail":
		if s.end == 0 {
			return
		}
		s.keep = append(s.keep, p...)
		if over := int64(len(s.keep)) - s.end; over > s.end+64<<10 {
			s.keep = s.keep[:copy(s.keep, s.keep[over:])]
		}
	}
}

// result is the part kept, as readFile would give it.
func (s *selector) result(o *step.ReadOptions) (string, error) {
	if s.units {
		if s.kind == "tail" && s.bytes {
			return string(s.keep[max(0, int64(len(s.keep))-s.end):]), nil
		}
		if s.kind == "tail" {
			if over := int64(len(s.tailStarts)) - s.end; over > 0 {
				return string(s.keep[s.tailStarts[over]:]), nil
			}
		}
		return string(s.keep), nil
	}
	if s.first > s.n {
		option, value := "line", fmt.Sprint(s.first)
		if o.Lines != "" {
			option, value = "lines", fmt.Sprintf("%d-%d", s.first, s.last)
		}
		return "", &step.OptionError{Option: option, Value: value,
			Reason: fmt.Sprintf("past the end: the file has %d lines", s.n),
			Fix:    fmt.Sprintf("ask for lines 1 to %d", s.n)}
	}
	out := strings.TrimSuffix(string(s.keep), "\n")
	return strings.TrimSuffix(out, "\r"), nil
}
