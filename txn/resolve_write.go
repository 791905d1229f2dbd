package txn

import (
	"bytes"
	"fmt"

	"github.com/autocoder/autocoder/matcher"
	"github.com/autocoder/autocoder/step"
)

// resolveWrite resolves a write: the file's whole new content.
func (w *workspace) resolveWrite(op *step.Op, f *file, rel string, r *step.OpResult) error {
	data := written(op, f, nil)
	switch {
	case !f.exists:
		r.Message = "created"
	case bytes.Equal(data, f.data) && !f.origLink:
		// A response sent again: "replaced" would tell the model it
		// changed something.
		r.Message = "the file already has this content; nothing changed"
	case op.NoReplace && len(f.data) > 0:
		return &ExistsError{Path: rel, Fix: "this write only creates a file or fills an empty one; " +
			"to change " + rel + ", quote the lines to change as the old text, or write the whole file"}
	case op.NoReplace:
		r.Message = "filled the empty file"
	default:
		if err := checkElision(rel, f.data, op.Content); err != nil {
			return err
		}
		r.Message = "replaced an existing file"
	}
	return w.setContent(f, data)
}

// resolveAppend resolves an append, or an insert after a line (op.AfterLine).
func (w *workspace) resolveAppend(op *step.Op, f *file, rel string, r *step.OpResult) error {
	if !f.exists && op.MustExist {
		return &NotFoundError{Path: rel, Fix: "append_file needs an existing file; use write_file to create it"}
	}
	if op.AfterLine != nil {
		return w.insert(op, f, rel, r)
	}
	data := written(op, f, f.data)
	r.Message = "appended"
	return w.setContent(f, data)
}

// written is the file's content after a write (old == nil) or an append
// of op.Content to old. The content keeps the line endings of the file it
// changes (matcher.KeepLineEndings; git's own conversion comes on top, in
// changes), and text lines (op.TextLines: Axon write_file, append_file)
// end with a line break, an append starting on a new line: the reference
// glued an append to the file's last line, which broke a Python file in the
// real history.
func written(op *step.Op, f *file, old []byte) []byte {
	content := op.Content
	// The style to keep: the file's when it has one, else the content's
	// own; "\n" when neither has one.
	style := op.Content
	if f.exists && !f.origLink {
		content = matcher.KeepLineEndings(f.data, content)
		style = f.data
	}
	eol := matcher.KeepLineEndings(style, []byte("\n"))
	if op.TextLines {
		if len(content) > 0 && content[len(content)-1] != '\n' {
			content = append(append([]byte{}, content...), eol...)
		}
		if len(old) > 0 && old[len(old)-1] != '\n' {
			old = append(append([]byte{}, old...), eol...)
		}
	}
	if old == nil {
		return content
	}
	return append(append([]byte{}, old...), content...)
}

// insert puts op.Content after line *op.AfterLine of f, counting lines as
// the text editor tool does: the text split at "\n", so a file ending in a
// line break has one more (empty) line, and inserting after it adds the
// text after that break. The inserted text takes the file's line endings.
func (w *workspace) insert(op *step.Op, f *file, rel string, r *step.OpResult) error {
	if !f.exists || f.origLink {
		return &NotFoundError{Path: rel, Fix: "insert needs an existing file; create it first"}
	}
	k, n := *op.AfterLine, bytes.Count(f.data, []byte("\n"))+1
	if k < 0 || k > n {
		return &step.Error{C: step.ClassStepFailed, Msg: fmt.Sprintf("insert_line %d is outside the file's lines [0, %d]", k, n),
			Fix: fmt.Sprintf("give insert_line from 0 (before the first line) to %d (after the last)", n)}
	}
	content := matcher.KeepLineEndings(f.data, op.Content)
	eol := matcher.KeepLineEndings(f.data, []byte("\n"))
	var out []byte
	already := false // the text is there already: the same answer sent again
	switch {
	case k == n:
		already = bytes.HasSuffix(f.data, append(append([]byte{}, eol...), content...))
		out = append(append(append(out, f.data...), eol...), content...)
	default:
		p := 0 // just past the k-th line break
		for range k {
			p += bytes.IndexByte(f.data[p:], '\n') + 1
		}
		// (or it ends the file, where an insert after the last line put it)
		already = bytes.HasPrefix(f.data[p:], append(append([]byte{}, content...), eol...)) || bytes.Equal(f.data[p:], content)
		out = append(append(append(append(out, f.data[:p]...), content...), eol...), f.data[p:]...)
	}
	if already && len(content) > 0 {
		r.Message = fmt.Sprintf("already inserted: the lines after line %d are this text; nothing changed", k)
		return nil
	}
	r.Message = fmt.Sprintf("inserted after line %d", k)
	return w.setContent(f, out)
}
