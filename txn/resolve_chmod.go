package txn

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
)

// resolveChmod resolves a mode change: git records only the executable bit.
func (w *workspace) resolveChmod(op *step.Op, f *file, rel string, r *step.OpResult) error {
	if !f.exists || f.origLink {
		return &NotFoundError{Path: rel, Fix: "chmod needs an existing regular file"}
	}
	m, err := strconv.ParseUint(strings.TrimSpace(op.Mode), 8, 32)
	if err != nil || len(strings.TrimSpace(op.Mode)) < 3 || len(strings.TrimSpace(op.Mode)) > 4 {
		return &step.Error{C: step.ClassUsage, Msg: fmt.Sprintf("mode %q is not an octal mode", op.Mode),
			Fix: `write the mode as 3 or 4 octal digits, e.g. "755" or "0644"`}
	}
	if m&0o111 != 0 {
		f.mode = gitops.ModeExec
	} else {
		f.mode = gitops.ModeFile
	}
	r.Message = "git records only the executable bit"
	return nil
}
