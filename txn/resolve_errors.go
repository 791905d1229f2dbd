package txn

import (
	"fmt"

	"github.com/autocoder/autocoder/step"
)

// DirtyError is a step that would touch the user's uncommitted work: a
// modified, staged, conflicted or untracked file. Nothing is changed.
type DirtyError struct {
	Path string
	Why  string
	// Untracked is "file" or "folder" when the work in the way is a file
	// git does not track, or a folder holding some: a plain git stash
	// leaves them where they are.
	Untracked string
}

func (e *DirtyError) Error() string { return fmt.Sprintf("refused %s: %s", e.Path, e.Why) }

// Hint says what to do.
func (e *DirtyError) Hint() string {
	return "autocoder never mixes your uncommitted work into a step, nor risks it on rollback: " + e.remedy("apply again")
}

// remedy is how the user clears the way, then does what next says.
func (e *DirtyError) remedy(next string) string {
	if e.Untracked == "" {
		return "commit or stash your changes to " + e.Path + " (git stash), then " + next
	}
	what := "the untracked file "
	if e.Untracked == "folder" {
		what = "the untracked files in "
	}
	return "commit, move or stash " + what + e.Path + " (git stash --include-untracked), then " + next
}

// Class is refused: the user's uncommitted work is never touched.
func (e *DirtyError) Class() step.Class { return step.ClassRefused }

// OpError is a failed op, with the op's place in the response.
type OpError struct {
	Op  *step.Op
	Err error
}

func (e *OpError) Error() string {
	where := ""
	if e.Op.Pos.Line > 0 {
		where = fmt.Sprintf(" (response line %d)", e.Op.Pos.Line)
	}
	return fmt.Sprintf("%s %s%s: %v", e.Op.Kind, e.Op.Path, where, e.Err)
}

func (e *OpError) Unwrap() error { return e.Err }

// NotFoundError is a path an op needs that does not exist.
type NotFoundError struct{ Path, Fix string }

func (e *NotFoundError) Error() string { return e.Path + " does not exist" }

// Hint says what to do.
func (e *NotFoundError) Hint() string { return e.Fix }

// Class is step failed: the repository does not hold the path.
func (e *NotFoundError) Class() step.Class { return step.ClassStepFailed }

// ExistsError is a target that exists where the op may not replace it.
type ExistsError struct{ Path, Fix string }

func (e *ExistsError) Error() string { return e.Path + " exists" }

// Hint says what to do.
func (e *ExistsError) Hint() string { return e.Fix }

// Class is step failed: the op may not replace what is there.
func (e *ExistsError) Class() step.Class { return step.ClassStepFailed }

// KindError is a folder where the op needs a file, or the reverse.
type KindError struct{ Path, Is, Fix string }

func (e *KindError) Error() string { return e.Path + " is " + e.Is }

// Hint says what to do.
func (e *KindError) Hint() string { return e.Fix }

// Class is step failed: the path is not the kind the op needs.
func (e *KindError) Class() step.Class { return step.ClassStepFailed }

// ConflictPathError is a file that would have to live below a file.
type ConflictPathError struct{ Path, File string }

func (e *ConflictPathError) Error() string {
	return fmt.Sprintf("cannot create %s: %s is a file, not a folder", e.Path, e.File)
}

// Hint says what to do.
func (e *ConflictPathError) Hint() string {
	return "delete " + e.File + " first in the same step, or choose another path"
}

// Class is step failed: the path cannot exist beside what is there.
func (e *ConflictPathError) Class() step.Class { return step.ClassStepFailed }

// DuplicatePathError is one file written twice in one step.
type DuplicatePathError struct{ First, Second, Path string }

func (e *DuplicatePathError) Error() string {
	if e.First == e.Second {
		return fmt.Sprintf("%q is written twice in one step", e.First)
	}
	return fmt.Sprintf("%q and %q name the same file (%s) in one step", e.First, e.Second, e.Path)
}

// Hint says what to do.
func (e *DuplicatePathError) Hint() string {
	return "write each file once per step, with its final content, under one spelling of its path"
}

// Class is step.ClassStepFailed.
func (e *DuplicatePathError) Class() step.Class { return step.ClassStepFailed }

// DeletedContentError is a delete whose quoted content (a unified diff's
// "-" lines) is not what the file holds: the model deletes a file it has
// not seen as it is.
type DeletedContentError struct{ Path string }

func (e *DeletedContentError) Error() string {
	return fmt.Sprintf("%s does not hold the lines the deletion quotes: it was not deleted", e.Path)
}

// Hint says what to do.
func (e *DeletedContentError) Hint() string {
	return "read " + e.Path + " again and quote its whole current content in the deletion, or delete it without quoting it"
}

// Class is a failed precondition: the file is not as the step expects.
func (e *DeletedContentError) Class() step.Class { return step.ClassPrecondition }
