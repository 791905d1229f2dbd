package matcher

// Functions only the tests use: the binary does not need them (deadcode),
// so they live beside the tests that do.

import (
	"bytes"
)

// Replace applies one edit. out is a fresh slice; content is never modified.
// The content is checked with CheckText first. On error out is nil and the
// error is one of the typed errors of this package.
func Replace(content []byte, e Edit) (out []byte, r Result, err error) {
	if err := CheckText(content); err != nil {
		return nil, Result{}, err
	}
	d, pre := load(content)
	cursor := 0
	r, err = applyAt(d, e, &cursor)
	if err != nil {
		return nil, Result{}, err
	}
	r.Start += len(pre)
	r.End += len(pre)
	if r.AlreadyApplied {
		return bytes.Clone(content), r, nil
	}
	return append(pre, d.bytes()...), r, nil
}
