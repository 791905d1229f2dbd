// Package reads executes the read-only operations of a step (step.OpRead,
// OpList, OpSearch and OpDiff) against a file system rooted at the
// repository root, and returns their output as text for the feedback.
//
// Start with Run, which dispatches on the op kind; step.CheckReadOptions holds the
// option rules, so that dialect readers can refuse a bad request at parse
// time with the same words the executor would use. Each kind lives in its
// own file: read.go, list.go, search.go, diff.go.
//
// Reads never change anything. They are given an fs.FS rather than a path
// so that the engine decides what the root is (and tests use fstest.MapFS).
package reads

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/autocoder/autocoder/step"
)

// Run executes a read kind (OpRead, OpList, OpSearch, OpDiff) against fsys,
// which is rooted at the repository root; op paths are already cleaned,
// slash-separated and relative to that root ("" and "." name the root).
// It returns the output for the feedback, or a *NotFoundError,
// *step.OptionError or *BinaryError.
//
// maxBytes ([apply] max_file_bytes; 0 means DefaultMaxBytes) bounds what a
// read holds in memory, whatever the files' sizes: a file over it is read
// only in the part a request names (streamed), skipped by a search (which
// says so), and refused by a diff, each decided from a stat before the
// content is touched.
func Run(fsys fs.FS, op step.Op, maxBytes int64) (string, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	var o step.ReadOptions
	if op.Read != nil {
		o = *op.Read
	}
	if err := step.CheckReadOptions(op.Kind, &o); err != nil {
		return "", err
	}
	name, err := fsPath(op.Path, "path")
	if err != nil {
		return "", err
	}
	switch op.Kind {
	case step.OpRead:
		return readFile(fsys, name, &o, maxBytes)
	case step.OpList:
		return list(fsys, name, &o, op.Narrow)
	case step.OpSearch:
		return search(fsys, name, &o, maxBytes, op.Narrow)
	case step.OpDiff:
		return diff(fsys, name, op, &o, maxBytes)
	}
	return "", &step.OptionError{Option: "kind", Value: string(op.Kind), Reason: "not a read operation",
		Fix: "only read, list, search and diff are executed here; the engine applies write kinds"}
}

// The bounds of a listing or a search: its output goes to a model, and a
// run sends it again with every later turn (a listing of a fixtures folder
// was 63,551 characters). Past them, the output says how much it left out
// and how to narrow the request.
const (
	MaxEntries     = 300      // entries of a listing without a limit of its own
	MaxOutputBytes = 16 << 10 // bytes of a listing or a search
)

// narrow is how to ask for less: the dialect's words when the op has
// them (step.Op.Narrow), else def.
func narrow(advice, def string) string {
	if advice != "" {
		return advice
	}
	return def
}

// NotFoundError reports a path that does not exist. It wraps fs.ErrNotExist,
// so errors.Is(err, fs.ErrNotExist) holds.
type NotFoundError struct {
	Path string
	Fix  string // what to do: the hint
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("%s: no such file or directory", e.Path) }

// Unwrap returns fs.ErrNotExist.
func (e *NotFoundError) Unwrap() error { return fs.ErrNotExist }

// Class is step failed: the repository does not hold the path.
func (e *NotFoundError) Class() step.Class { return step.ClassStepFailed }

// Hint says what to do.
func (e *NotFoundError) Hint() string { return e.Fix }

// BinaryError reports a file that holds a NUL byte and so cannot be shown
// or compared as text.
type BinaryError struct {
	Path string
	Fix  string // what to do: the hint
}

func (e *BinaryError) Error() string {
	return fmt.Sprintf("%s: binary file (it holds a NUL byte), cannot be shown as text", e.Path)
}

// Class is step failed: the file is not text.
func (e *BinaryError) Class() step.Class { return step.ClassStepFailed }

// Hint says what to do.
func (e *BinaryError) Hint() string { return e.Fix }

// fsPath turns an op path into an fs.FS name: "" is the root.
func fsPath(p, option string) (string, error) {
	if p == "" || p == "/" {
		return ".", nil
	}
	if !fs.ValidPath(p) {
		return "", &step.OptionError{Option: option, Value: p, Reason: "not a clean path relative to the repository root",
			Fix: "the engine passes cleaned, slash-separated paths without a leading slash or .. elements"}
	}
	return p, nil
}

// notFound turns fs.ErrNotExist into a *NotFoundError and passes other
// errors through with the path named.
func notFound(name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &NotFoundError{Path: name,
			Fix: "check the path; list the parent folder to see what exists"}
	}
	return fmt.Errorf("read %s: %w", name, err)
}

func binaryErr(name string) error {
	return &BinaryError{Path: name, Fix: `read it with encoding "base64" or "hex"`}
}
