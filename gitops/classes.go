package gitops

import "github.com/autocoder/autocoder/step"

// The classes of gitops's errors (see step.Class), in one place: cmd maps
// them to exit codes and each dialect's feedback to its own codes.

// Class is refused: a lock another program holds is never taken from it.
func (e *LockedError) Class() step.Class { return step.ClassRefused }

// Class is refused: a ref in the way is git's state, not the step's fault.
func (e *RefInTheWayError) Class() step.Class { return step.ClassRefused }

// Class is refused: someone else moved the ref while we worked.
func (e *RefChangedError) Class() step.Class { return step.ClassRefused }

// Class is refused: autocoder does not write what it cannot write correctly.
func (e *UnsupportedError) Class() step.Class { return step.ClassRefused }

// Class is usage: autocoder was started outside a repository.
func (e *NotRepoError) Class() step.Class { return step.ClassUsage }

// Class is usage: git must be told who the user is before it commits.
func (e *IdentityError) Class() step.Class { return step.ClassUsage }

// Class is step failed: the step wants a file and a folder at one path.
func (e *ConflictError) Class() step.Class { return step.ClassStepFailed }
