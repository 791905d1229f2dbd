// Package txn is the engine: it applies steps to a repository as
// transactions, one commit each, and undoes, redoes and recovers them.
//
// Start with engine.go (Open, the lock, Close), then the files named for
// the phases of a run: run.go (the run loop, Run), step.go (one
// step's transaction: Apply, its commit), dryrun.go (--dry-run's plan and
// patch), branch.go (the work branch's name), outcome.go (each op's
// outcome when a step fails) and notes.go (the step's block as a git
// note). A step is resolved in memory by workspace.go (the files as the
// step leaves them, and guard: the user's work) and resolve.go, which
// hands each op to the resolver of its kind (resolve_write.go,
// resolve_replace.go, resolve_delete.go, resolve_move.go, resolve_mkdir.go,
// resolve_chmod.go, resolve_read.go); their errors are in
// resolve_errors.go. programs.go runs a step's programs; undo.go
// holds Log, Undo and Redo. A transaction is a plan (journal.go) moved
// forward or back by transaction.go over indexbatch.go (index entries kept
// in memory and written once per run), refmove.go (ref and HEAD),
// place.go (worktree files) and recover.go (what a killed run left).
// walk.go walks the work tree. The read-only operations are in package reads; the path policy in pathpolicy.
package txn
