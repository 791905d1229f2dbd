package txn

import (
	"context"
	"time"

	"github.com/autocoder/autocoder/gitops"
)

// A long-lived process (the MCP server) keeps one Engine for its session:
// the repository, the configuration, the identity and the index stay open
// and in memory. Between calls it gives the repository lock back (Release),
// so that the CLI, git and other sessions can work, and takes it again for
// the next call (Acquire).

// Release ends a call: it writes the index (Flush) and releases the
// repository lock. The engine stays usable: Acquire starts the next call.
// Until then (from a few milliseconds on, so that a call sent at once does
// not meet it), it makes spare files for the next call's writes under .git
// (gitops.Spares: a new file costs up to a millisecond on some file
// systems, and a one-file call needs seven).
func (e *Engine) Release() error {
	err := e.Flush()
	e.plock.Unlock()
	e.plock = nil
	if e.spares == nil {
		e.spares = e.priv.Spares()
		e.repo.UseSpares(e.spares)
	}
	e.spares.Fill(spareFiles)
	return err
}

// forgetChanged drops what the engine read of the repository that the
// user, git or a program may have changed since its last step: the
// submodules, read from the index and .gitmodules once and again only
// when either file changed (a scan of 100k entries is not for every
// call), the attribute rules (a .gitattributes edited), git's
// configuration where a session looks at it once per call (a look: a stat
// of each file it read) and core.fileMode. A session's call (Acquire),
// each Run (an answer of `autocoder run`), the steps after a step's
// programs and the report on programs that keep running (Live) start
// with it.
func (e *Engine) forgetChanged() {
	e.repo.ConfigMayHaveChanged()
	if fi, err := e.repo.IndexStat(); err != nil || e.gitlinksAt == nil || !gitops.Unchanged(fi, e.gitlinksAt) || !e.repo.ModulesUnchanged(e.modulesAt) {
		e.gitlinks = nil
	}
	e.repo.ForgetAttributes()
	e.fileMode = e.repo.TrustsExecutableBit()
}

// spareFiles is how many spare files a session keeps: a one-file step at
// depth d makes d+5 files under .git (blob, trees, commit, the ref's and
// the index's locks).
const spareFiles = 16

// Acquire starts a call of an engine that Release ended: it takes the
// repository lock again, waiting up to wait while another autocoder holds it
// (*BusyError naming the holder after that; ctx cancels the wait), finishes
// a step that a killed process left in its journal, and notices what git
// changed in between (new packs, submodules, attributes). On an engine that holds its
// lock, Acquire does nothing.
func (e *Engine) Acquire(ctx context.Context, wait time.Duration) error {
	if e.plock != nil {
		return nil
	}
	e.spares.Stop() // the call does not compete with making spares
	if err := e.lockWait(ctx, wait); err != nil {
		return err
	}
	if err := e.repo.Refresh(); err != nil {
		e.Release()
		return err
	}
	e.forgetChanged()
	if err := e.recover(); err != nil {
		e.Release()
		return err
	}
	return nil
}
