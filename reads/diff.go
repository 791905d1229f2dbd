package reads

import (
	"io/fs"

	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/textkind"
	"github.com/autocoder/autocoder/unidiff"
)

// diff returns the unified diff from the file name to the file op.To, or to
// op.Content when op.HasContent (exactly one of the two), labelled
// "a/<path>" and "b/<path>". Identical texts give "". Lines are compared
// with their newline, so a missing final newline shows as a change
// ("\ No newline at end of file").
//
// ContextLines 0 means the default of 3: step.ReadOptions cannot tell an
// absent option from 0. (If a caller needs a diff without context, that is
// a field to add to step.ReadOptions.)
func diff(fsys fs.FS, name string, op step.Op, o *step.ReadOptions, max int64) (string, error) {
	if (op.To != "") == op.HasContent {
		return "", &step.OptionError{Option: "to", Reason: "give exactly one right-hand side: a path (To) or Content",
			Fix: "fs.diff takes leftPath and exactly one of rightPath, rightContent"}
	}
	left, err := readText(fsys, name, max)
	if err != nil {
		return "", err
	}
	rightName := name
	var right []byte
	if op.HasContent {
		right = op.Content
		if textkind.Binary(right, 0) >= 0 {
			return "", &BinaryError{Path: "the given content", Fix: "compare text only"}
		}
	} else {
		if rightName, err = fsPath(op.To, "to"); err != nil {
			return "", err
		}
		if right, err = readText(fsys, rightName, max); err != nil {
			return "", err
		}
	}
	ctx := o.ContextLines
	if ctx == 0 {
		ctx = unidiff.DefaultContext
	}
	return unidiff.Unified("a/"+name, "b/"+rightName, string(left), string(right), ctx), nil
}

// readText reads a file to diff, refusing one over max from its size.
func readText(fsys fs.FS, name string, max int64) ([]byte, error) {
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, notFound(name, err)
	}
	if info.IsDir() {
		return nil, &step.OptionError{Option: "path", Value: name, Reason: "is a directory", Fix: "diff compares two files"}
	}
	if err := notRegular(name, info); err != nil {
		return nil, err
	}
	if info.Size() > max {
		return nil, overLimit(name, info.Size(), max, "diff smaller files, or read parts of this one (range, lines)")
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, notFound(name, err)
	}
	if textkind.Binary(data, 0) >= 0 {
		return nil, &BinaryError{Path: name, Fix: "diff compares text only; compare sha256 (fs.read includeMeta) instead"}
	}
	return data, nil
}
