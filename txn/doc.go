// Package txn is the engine: it applies steps to a repository as
// transactions, one commit each, and undoes, redoes and recovers them.
//
// Start with engine.go (Open, the lock, Close) and run.go (Run, Apply, the
// commit of a step, --dry-run's dryRun). apply.go resolves a step in memory
// and guards the user's work; programs.go runs a step's programs; undo.go
// holds Log, Undo and Redo. A transaction is a plan (journal.go) moved
// forward or back by transaction.go over indexbatch.go (index entries kept
// in memory and written once per run), refmove.go (ref and HEAD),
// place.go (worktree files) and recover.go (what a killed run left).
// walk.go walks the work tree. The read-only operations are in package reads; the path policy in pathpolicy.
package txn
