package txn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/reads"
	"github.com/autocoder/autocoder/step"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/index"
	"github.com/autocoder/autocoder/matcher"
	"github.com/autocoder/autocoder/pathpolicy"
)

// Options configure an Engine.
type Options struct {
	BranchPrefix string // "autocoder/"
	Branch       string // --branch: the work branch to use or create; "" picks one
	MaxFileBytes int64  // files larger than this are never edited (0: 10 MiB)
	// Deny reports paths the configuration denies (see pathpolicy.Policy).
	Deny func(rel string) (pattern string, denied bool)
	// Programs decides whether a program may run and runs it. Nil: every
	// program is refused by the policy (programs are off by default).
	Programs ProgramPolicy
	// Verify, when set, runs after a step's files are written and before
	// its commit; an error rolls the step back (see VerifyError).
	// ctx is the step's: a verify command is stopped when the call is.
	Verify func(ctx context.Context, root string) (output string, err error)
	// Log receives notes for the user (recovery, warnings); nil discards.
	Log io.Writer
	// Quiet is the user's --quiet: nothing on success but errors and
	// warnings, so the note that a large index was written split (Flush)
	// is not written to Log.
	Quiet bool
	// LockWait is how long Open waits while another autocoder holds the
	// repository's lock; zero refuses at once (*BusyError).
	LockWait time.Duration
	// Now stamps commits when the identity has no fixed date; nil: time.Now.
	Now func() time.Time
	// SplitIndex is for an engine kept for a session (the MCP server): it
	// writes the index as git's split index, a small file of the entries
	// changed beside a shared one, so that a call does not rewrite 10 MB
	// at 100k files. core.splitIndex=false in the repository's config
	// turns it off (gitops.Repo.ConfigureSplit).
	SplitIndex bool
}

// Engine applies steps to one repository. It holds the repository's
// autocoder lock from Open to Close, so one process works at a time.
type Engine struct {
	repo   *gitops.Repo
	Policy *pathpolicy.Policy
	opts   Options
	priv   *gitops.Private // autocoder's folder under .git: journal, lock, redo stacks
	plock  *gitops.ProcessLock

	fileMode bool // core.fileMode: whether the executable bit counts

	gitlinks   map[string]bool // submodule paths in the index, loaded lazily
	gitlinksAt os.FileInfo     // the index file's stat when gitlinks was read
	modulesAt  os.FileInfo     // .gitmodules' stat then (nil: absent)
	crash      crashPoint

	// ixCache is the index as this engine last wrote it, with the file's
	// stat then (see lockIndex).
	ixCache *index.Index
	ixStat  os.FileInfo
	// held is index.lock with the index, kept across the steps of a run;
	// debt lists the paths whose entries are only in held (see Flush).
	held  *heldIndex
	debt  map[string]entry // path -> its entry in the index file before the run
	batch bool             // inside Run: steps leave the index in memory

	// live are the programs that keep running between steps (live.go);
	// liveBefore is the dirty state before the first of them started, so
	// that only what they change is committed; liveSeq numbers reports.
	live       []*liveProgram
	liveBefore map[string]string
	liveSeq    int

	// spares are files made between a session's calls (see Release).
	spares *gitops.Spares

	// startsMade are the work branches whose start this engine recorded
	// (recordStart), each with whether it made the config section: a
	// branch that was then never made has its record taken back
	// (traces.go).
	startsMade map[string]bool

	// view is the work branch of View ("refs/heads/…"); "": HEAD's.
	view string
}

// SetPolicy gives an engine kept across Runs the settings' part of o anew:
// Deny, Programs, Verify and MaxFileBytes (0: the default), which the
// next step applies; the other fields are left as Open set them. Programs
// that keep running are stopped where o.Programs no longer allows them
// (revokeLive).
func (e *Engine) SetPolicy(o Options) {
	if o.MaxFileBytes == 0 {
		o.MaxFileBytes = config.DefaultMaxFileBytes
	}
	e.opts.Deny, e.opts.Programs, e.opts.Verify, e.opts.MaxFileBytes = o.Deny, o.Programs, o.Verify, o.MaxFileBytes
	e.Policy.Deny = o.Deny
	e.revokeLive(o.Programs)
}

// BusyError is another autocoder process working in the same repository.
type BusyError struct{ Holder string }

func (e *BusyError) Error() string {
	return "another autocoder is working in this repository (" + e.Holder + ")"
}

// Hint says what to do.
func (e *BusyError) Hint() string {
	return "wait for it to finish and run the command again"
}

// Class is refused: one autocoder works in a repository at a time.
func (e *BusyError) Class() step.Class { return step.ClassRefused }

// Open takes the repository's autocoder lock and finishes or rolls back a
// step that a killed process left in its journal. The engine owns repo from
// here on: Close closes it. The wait for another autocoder (opts.LockWait)
// ends when ctx does (Ctrl-C), with a *CancelledError.
func Open(ctx context.Context, repo *gitops.Repo, opts Options) (*Engine, error) {
	if opts.BranchPrefix == "" {
		opts.BranchPrefix = config.DefaultBranchPrefix
	}
	if opts.MaxFileBytes == 0 {
		opts.MaxFileBytes = config.DefaultMaxFileBytes
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Branch != "" {
		name := opts.Branch
		if !strings.HasPrefix(name, opts.BranchPrefix) {
			name = opts.BranchPrefix + name
		}
		if err := checkBranchName(name); err != nil {
			return nil, err
		}
	}
	e := &Engine{repo: repo, opts: opts}
	e.fileMode = repo.TrustsExecutableBit()
	e.Policy = &pathpolicy.Policy{Root: repo.Root, Deny: opts.Deny, Gitlink: e.isGitlink}
	repo.UseFolders(e.folderEntries)
	e.crash = crashFromEnv()
	var err error
	if e.priv, err = repo.Private(); err != nil {
		repo.Close()
		return nil, err
	}
	if err := e.lockWait(ctx, opts.LockWait); err != nil {
		repo.Close()
		return nil, err
	}
	if err := e.recover(); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// noteAfter is how long lockWait waits before it says that it waits: the
// turns of an MCP session's calls are shorter and say nothing.
const noteAfter = 300 * time.Millisecond

// lockWait takes the private folder's process lock, which the system
// releases when the process dies, so a killed autocoder never blocks the
// next one. While another autocoder holds it, lockWait waits up to wait
// (with a growing backoff; ctx cancels): a second MCP session on the same
// repository then runs its call after the first one's, instead of failing.
// onBusy is called each time lockWait finds another autocoder holding the
// repository, before it pauses: the tests let go of the lock, or cancel,
// at a known point of the wait instead of sleeping and hoping it has begun.
var onBusy = func() {}

func (e *Engine) lockWait(ctx context.Context, wait time.Duration) error {
	var held *gitops.LockHeldError
	noted := false
	err, gaveUp := gitops.WaitWhileHeld(ctx, wait, 100*time.Millisecond,
		func() error {
			l, err := e.priv.Lock()
			if err == nil {
				e.plock = l
			}
			return err
		},
		func(err error) bool { return errors.As(err, &held) },
		func(waited time.Duration) {
			onBusy()
			if !noted && waited >= noteAfter && waited < wait && ctx.Err() == nil {
				// A wait the user would notice says what it waits for, and
				// that Ctrl-C ends it (with nothing applied).
				noted = true
				fmt.Fprintf(e.opts.Log, "autocoder: waiting up to %s for another autocoder working in this repository (%s); Ctrl-C stops\n", wait, held.Holder)
			}
		})
	if gaveUp {
		if cerr := cancelled(ctx); cerr != nil {
			return cerr
		}
		return &BusyError{Holder: held.Holder}
	}
	return err
}

// Close writes the index (Flush), releases the lock and the repository.
func (e *Engine) Close() error {
	// Nothing a step starts outlives the engine: a caller that did not
	// stop its live programs (Live with stop) has them stopped here.
	for _, l := range e.live {
		l.h.Stop()
	}
	e.live = nil
	ferr := e.Flush()
	e.spares.Remove()
	e.Policy.Close()
	e.plock.Unlock()
	e.plock = nil
	if err := e.repo.Close(); ferr == nil {
		ferr = err
	}
	return ferr
}

// identity is the user's identity for a commit made now (Repo.Identity).
func (e *Engine) identity() (author, committer gitops.Signature, err error) {
	author, committer, err = e.repo.Identity()
	if err != nil {
		return author, committer, err
	}
	now := e.opts.Now()
	if author.When.IsZero() {
		author.When = now.In(author.When.Location())
	}
	if committer.When.IsZero() {
		committer.When = now.In(committer.When.Location())
	}
	return author, committer, nil
}

func (e *Engine) isGitlink(rel string) bool {
	if e.gitlinks == nil {
		// One scan of the index per engine, on the first path it checks
		// (again in a session when the index changed: see Acquire). The
		// index read for it is kept (ixCache) for lockIndex, which
		// takes it when the file under the lock is still the one read:
		// at 100k entries an apply reads 10 MB once, not twice. The
		// stat comes first, so that a file replaced during the read
		// never matches it.
		fi, _ := e.repo.IndexStat()
		e.gitlinksAt = fi
		e.modulesAt = e.repo.ModulesStat()
		var ix *index.Index
		switch {
		case e.ixCache != nil && fi != nil && gitops.Unchanged(fi, e.ixStat):
			ix = e.ixCache
		default:
			if read, err := e.repo.ReadIndex(); err == nil {
				ix = read
				if fi != nil && e.held == nil && len(e.debt) == 0 {
					e.ixCache, e.ixStat = ix, fi
				}
			}
		}
		e.gitlinks = e.repo.Gitlinks(ix)
	}
	return e.gitlinks[rel]
}

// crashPoint is a fault-injection hook for the tests: with
// AUTOCODER_TEST_CRASH_AT=N the process kills itself (SIGKILL) at the
// N-th point of a transaction it reaches, so the crash test can stop a run
// at every point and check what the next command makes of it; with
// AUTOCODER_TEST_FAIL_AT=N the N-th point returns an error instead, which
// exercises the rollback at every point; with AUTOCODER_TEST_FAIL_FROM=N
// the N-th and every later one does, the rollback's too; with
// AUTOCODER_TEST_FAIL_BACK=1 the journal cannot record that a failed step
// goes back (a full disk: see execute). Unset, they cost a comparison.
type crashPoint struct {
	crashAt, failAt, failFrom, seen int
	failBack                        bool
}

// errInjected is the failure AUTOCODER_TEST_FAIL_AT injects.
var errInjected = errors.New("injected failure (AUTOCODER_TEST_FAIL_AT, _FAIL_FROM)")

func crashFromEnv() crashPoint {
	c, _ := strconv.Atoi(os.Getenv("AUTOCODER_TEST_CRASH_AT"))
	f, _ := strconv.Atoi(os.Getenv("AUTOCODER_TEST_FAIL_AT"))
	from, _ := strconv.Atoi(os.Getenv("AUTOCODER_TEST_FAIL_FROM"))
	return crashPoint{crashAt: c, failAt: f, failFrom: from, failBack: os.Getenv("AUTOCODER_TEST_FAIL_BACK") == "1"}
}

func (c *crashPoint) point() error {
	if c.crashAt <= 0 && c.failAt <= 0 && c.failFrom <= 0 {
		return nil
	}
	c.seen++
	if c.seen == c.crashAt {
		// SIGKILL on unix, TerminateProcess on Windows: no defer runs,
		// nothing is flushed, as when the power goes.
		if self, err := os.FindProcess(os.Getpid()); err == nil {
			self.Kill()
		}
		time.Sleep(time.Second)
	}
	if c.seen == c.failAt || c.failFrom > 0 && c.seen >= c.failFrom {
		return errInjected
	}
	return nil
}

// reasonOf is the finer class of a failed step's error for the feedback
// writers (Result.Reason; FlyCode's app codes need it): read from the
// error's type, never from its wording. written: the step was being
// written; a file missing then (a temporary one a git prune removed
// beside us) is autocoder's failure, not a path of the model's that is
// not there.
func reasonOf(err error, written bool) string {
	var nf *NotFoundError
	var rnf *reads.NotFoundError
	var ex *ExistsError
	var kind *KindError
	var conflict *ConflictPathError
	var nm *matcher.NoMatchError
	var amb *matcher.AmbiguousMatchError
	var anchor *matcher.AnchorError
	switch c := step.ClassOf(err); {
	case err == nil:
		return ""
	case c == step.ClassPrecondition:
		return step.ReasonPrecondition
	case c == step.ClassRefused && errors.As(err, new(*ElisionError)):
		return step.ReasonLosesCode
	case c == step.ClassRefused && errors.As(err, new(*gitops.IgnoredError)):
		return step.ReasonIgnored
	case c == step.ClassRefused:
		return step.ReasonRefused
	case errors.As(err, &nf), errors.As(err, &rnf), !written && errors.Is(err, fs.ErrNotExist):
		return step.ReasonNotFound
	case errors.As(err, &ex):
		return step.ReasonExists
	case errors.As(err, &kind), errors.As(err, &conflict):
		return step.ReasonWrongKind
	case errors.As(err, &nm), errors.As(err, &anchor):
		return step.ReasonNoMatch
	case errors.As(err, &amb):
		return step.ReasonAmbiguous
	case c != step.ClassInternal:
		return step.ReasonInvalid // the op as written
	}
	return step.ReasonInternal
}
