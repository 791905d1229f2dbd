package step

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The read options are checked here, beside their type, so that every
// reader of a response (protocol) refuses a bad option as the engine
// would, without importing the engine.

// OptionError reports an option whose value cannot be used (a malformed
// range, two options that exclude each other, a directory where a file is
// needed, a line past the end of the file). Option names the option as
// autocoder calls it (the JSON name of step.ReadOptions, or "path").
type OptionError struct {
	Option string
	Value  string
	Reason string
	Fix    string // what to write instead: the hint
}

func (e *OptionError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("invalid %s: %s", e.Option, e.Reason)
	}
	return fmt.Sprintf("invalid %s %q: %s", e.Option, e.Value, e.Reason)
}

// Class is usage: the op's arguments cannot be used as written.
func (e *OptionError) Class() Class { return ClassUsage }

// Hint says what to write instead.
func (e *OptionError) Hint() string { return e.Fix }

// CheckReadOptions reports the first option of o that kind cannot use, as an
// *OptionError. Zero values are the defaults and always pass. The rules:
//   - read: at most one of Range, Line, Lines; Line and Lines only with
//     the utf-8 encoding; Range is head:N, tail:N or start:end; Lines is a-b
//     with 1 <= a <= b; Encoding is "", utf-8, base64 or hex.
//   - list: Depth >= 0 (0 = unlimited); Glob is a valid pattern; Limit >= 0.
//   - search: Query is set (and compiles when Regex); Limit, ContextLines,
//     MinBytes, MaxBytes >= 0 and MinBytes <= MaxBytes when both are set;
//     MtimeFrom and MtimeTo are RFC 3339 times or YYYY-MM-DD dates.
//   - diff: ContextLines >= 0.
func CheckReadOptions(kind OpKind, o *ReadOptions) error {
	if o == nil {
		o = &ReadOptions{}
	}
	switch kind {
	case OpRead:
		return checkRead(o)
	case OpList:
		if o.Depth < 0 {
			return negative("depth", o.Depth)
		}
		if o.Limit < 0 {
			return negative("limit", o.Limit)
		}
		return checkGlob(o.Glob)
	case OpSearch:
		return checkSearch(o)
	case OpDiff:
		if o.ContextLines < 0 {
			return negative("contextLines", o.ContextLines)
		}
	}
	return nil
}

func negative(option string, v int) error {
	return &OptionError{Option: option, Value: strconv.Itoa(v), Reason: "must not be negative", Fix: "give 0 or more"}
}

func checkRead(o *ReadOptions) error {
	set := 0
	var names []string
	if o.Range != "" {
		set++
		names = append(names, "range")
	}
	if o.Line != 0 {
		set++
		names = append(names, "line")
	}
	if o.Lines != "" {
		set++
		names = append(names, "lines")
	}
	if set > 1 {
		return &OptionError{Option: strings.Join(names, "/"), Reason: "range, line and lines exclude each other",
			Fix: "give at most one of range, line, lines"}
	}
	switch o.Encoding {
	case "", "utf-8", "base64", "hex":
	default:
		return &OptionError{Option: "encoding", Value: o.Encoding, Reason: "unknown encoding",
			Fix: `use "utf-8", "base64" or "hex"`}
	}
	if (o.Encoding == "base64" || o.Encoding == "hex") && (o.Line != 0 || o.Lines != "") {
		return &OptionError{Option: "encoding", Value: o.Encoding, Reason: "line and lines need the utf-8 encoding",
			Fix: "drop line/lines, or use range (it counts bytes with base64/hex)"}
	}
	if o.Line < 0 {
		return &OptionError{Option: "line", Value: strconv.Itoa(o.Line), Reason: "lines are numbered from 1", Fix: "the first line is 1"}
	}
	if o.Range != "" {
		if _, err := ParseRange(o.Range); err != nil {
			return err
		}
	}
	if o.Lines != "" {
		if _, _, err := ParseLines(o.Lines); err != nil {
			return err
		}
	}
	return nil
}

func checkSearch(o *ReadOptions) error {
	if o.Query == "" {
		return &OptionError{Option: "query", Reason: "empty", Fix: "give the text (or, with regex, the pattern) to search for"}
	}
	if o.Regex {
		if _, err := regexp.Compile(o.Query); err != nil {
			return &OptionError{Option: "query", Value: o.Query, Reason: "not a valid regular expression: " + err.Error(),
				Fix: "use Go (RE2) syntax, or set regex to false to search for the text as written"}
		}
	}
	for _, n := range []struct {
		name string
		v    int64
	}{{"limit", int64(o.Limit)}, {"contextLines", int64(o.ContextLines)}, {"minBytes", o.MinBytes}, {"maxBytes", o.MaxBytes}} {
		if n.v < 0 {
			return &OptionError{Option: n.name, Value: strconv.FormatInt(n.v, 10), Reason: "must not be negative", Fix: "give 0 or more"}
		}
	}
	if o.MaxBytes > 0 && o.MinBytes > o.MaxBytes {
		return &OptionError{Option: "minBytes", Value: strconv.FormatInt(o.MinBytes, 10),
			Reason: fmt.Sprintf("larger than maxBytes %d", o.MaxBytes), Fix: "minBytes is the lower bound of the size, maxBytes the upper"}
	}
	for _, ext := range o.Extensions {
		if strings.Trim(ext, ".") == "" || strings.Contains(ext, "/") {
			return &OptionError{Option: "extensions", Value: ext, Reason: "not a file extension", Fix: `write extensions like "go" or ".ts"`}
		}
	}
	if _, err := ParseMtime("mtimeFrom", o.MtimeFrom, false); err != nil {
		return err
	}
	if _, err := ParseMtime("mtimeTo", o.MtimeTo, true); err != nil {
		return err
	}
	return checkGlob(o.Glob)
}

func checkGlob(g string) error {
	if g == "" {
		return nil
	}
	if _, err := path.Match(strings.TrimPrefix(g, "**/"), ""); err != nil {
		return &OptionError{Option: "glob", Value: g, Reason: "malformed pattern",
			Fix: `use * ? [abc] on file names, optionally after "**/", e.g. "**/*.ts"`}
	}
	return nil
}

// Range is a parsed range option: head:N, tail:N or start:end (end exclusive).
type Range struct {
	Kind       string // head, tail, slice
	Start, End int
}

// ParseRange reads a range option: head:N, tail:N or start:end.
func ParseRange(s string) (Range, error) {
	bad := func(reason string) (Range, error) {
		return Range{}, &OptionError{Option: "range", Value: s, Reason: reason,
			Fix: `write "head:N", "tail:N" or "start:end" (characters, start counted from 0, end excluded)`}
	}
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return bad("no colon")
	}
	num := func(t string) (int, bool) {
		n, err := strconv.Atoi(t)
		return n, err == nil && n >= 0 && t != "" && t[0] != '+'
	}
	switch a {
	case "head", "tail":
		n, ok := num(b)
		if !ok {
			return bad("N must be a whole number, 0 or more")
		}
		return Range{Kind: a, End: n}, nil
	}
	start, ok1 := num(a)
	end, ok2 := num(b)
	if !ok1 || !ok2 {
		return bad("start and end must be whole numbers, 0 or more")
	}
	if start > end {
		return bad("start is after end")
	}
	return Range{Kind: "slice", Start: start, End: end}, nil
}

// ParseLines reads "a-b" (or a lone "a"), 1-based and inclusive.
func ParseLines(s string) (int, int, error) {
	bad := func(reason string) (int, int, error) {
		return 0, 0, &OptionError{Option: "lines", Value: s, Reason: reason,
			Fix: `write "a-b": first and last line, counted from 1, e.g. "10-20"`}
	}
	a, b, found := strings.Cut(s, "-")
	if !found {
		b = a
	}
	first, err1 := strconv.Atoi(strings.TrimSpace(a))
	last, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil {
		return bad("not two line numbers")
	}
	if first < 1 {
		return bad("lines are numbered from 1")
	}
	if last < first {
		return bad("the last line comes before the first")
	}
	return first, last, nil
}

// ParseMtime reads an RFC 3339 time or a YYYY-MM-DD date (UTC). A date as
// an upper bound means the end of that day, so "mtimeTo": "2024-05-01"
// includes files changed on May 1.
func ParseMtime(option, s string, upper bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		if upper {
			t = t.Add(24*time.Hour - time.Nanosecond)
		}
		return t, nil
	}
	return time.Time{}, &OptionError{Option: option, Value: s, Reason: "not a time",
		Fix: `write an RFC 3339 time ("2024-05-01T12:00:00Z") or a date ("2024-05-01")`}
}
