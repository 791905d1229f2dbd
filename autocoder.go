// Package autocoder is the library's entry point: Open finds the git
// repository around a folder, loads the settings in effect there (the
// user's own file, and the repository's autocoder.toml as far as the user
// trusts it), and builds the engine with its real policies: the path
// policy with the configured denials, the program policy and verify
// command of package runner, the work-branch prefix and the size limits.
// Every way in uses it: each command of cmd/autocoder, the MCP server's
// sessions, the browser bridge's requests, and `autocoder run`.
//
//	e, err := autocoder.Open(ctx, ".", autocoder.Options{})
//	if err != nil { ... }
//	defer e.Close()
//	rep := e.Execute(ctx, protocol.Parse(answer), txn.RunOptions{})
//
// The packages below it are the architecture (DESIGN.md): protocol reads
// a response into steps, txn applies them, report and the dialects'
// feedback writers say what happened.
package autocoder

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/runner"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// Options are the caller's choices; everything else comes from the
// settings in effect.
type Options struct {
	// Branch is the work branch to use or create (--branch); "" picks one.
	Branch string
	// AllowPrograms lets every program run for this engine
	// (--allow-programs); otherwise the settings' [programs] decide.
	AllowPrograms bool
	// LockWait is how long Open waits while another autocoder works in
	// the repository; zero refuses at once.
	LockWait time.Duration
	// Session is for an engine kept across calls (the MCP server): it
	// writes the index as git's split index (txn.Options.SplitIndex).
	Session bool
	// Log receives the engine's notes and the warning that the
	// repository's untrusted settings are ignored; nil discards them.
	Log io.Writer
	// Quiet is --quiet: the engine's notes of what went as it should are
	// not written to Log, its warnings are (txn.Options.Quiet).
	Quiet bool
	// Dirs are the user's folders for the user's own file and the trust
	// records; nil means config.UserDirs().
	Dirs *config.Dirs
}

// Engine is an opened repository: the transaction engine with the
// settings it was built from and the program policy it applies.
type Engine struct {
	*txn.Engine
	Settings config.Settings
	Programs *runner.Policy

	opts  Options       // as Open was given them, Log set
	dirs  config.Dirs   // where the user's file and the trust records are
	stamp []os.FileInfo // the policy files as Settings were read (policyFiles)
	// first is the configuration Open read, or the one read when the
	// user last trusted the repository's file: what settings read again
	// (Run) may narrow, never widen (config.Config.Within). trustAt is the
	// trust record's stat when first was read (nil: none).
	first   config.Config
	trustAt os.FileInfo
}

// Open opens the repository that contains dir with its settings and takes
// its autocoder lock (see txn.Open); Close releases both.
func Open(ctx context.Context, dir string, o Options) (*Engine, error) {
	repo, err := gitops.Open(dir)
	if err != nil {
		return nil, err
	}
	dirs := config.UserDirs()
	if o.Dirs != nil {
		dirs = *o.Dirs
	}
	stamp, trustAt := policyFiles(repo.Root, dirs), statOrNil(dirs.TrustRecord(repo.Root))
	s, err := config.Load(repo.Root, dirs)
	if err != nil {
		repo.Close()
		return nil, err
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	warnUntrusted(o.Log, s)
	// Before git runs for us (txn.Open): runner.New withdraws the model
	// API's key from the environment every process inherits.
	to, programs := engineOptions(s, o)
	e, err := txn.Open(ctx, repo, to)
	if err != nil {
		repo.Close()
		return nil, err
	}
	return &Engine{Engine: e, Settings: s, Programs: programs, opts: o, dirs: dirs, stamp: stamp, first: s.Config, trustAt: trustAt}, nil
}

// engineOptions are the engine's options that the settings s and the
// caller's options o give, with the program policy among them.
func engineOptions(s config.Settings, o Options) (txn.Options, *runner.Policy) {
	programs, verify := runner.New(s, o.AllowPrograms)
	return txn.Options{
		BranchPrefix: s.Apply.BranchPrefix,
		Branch:       o.Branch,
		MaxFileBytes: s.Apply.MaxFileBytes,
		Deny:         s.Denied,
		Programs:     programs,
		Verify:       verify,
		Log:          o.Log,
		Quiet:        o.Quiet,
		LockWait:     o.LockWait,
		SplitIndex:   o.Session,
	}, programs
}

// policyFiles are the stats of the files the settings are read from: the
// repository's autocoder.toml, the user's own file and the trust record
// (nil where absent). A change to any of them (autocoder untrust, too)
// changes the policy.
func policyFiles(root string, dirs config.Dirs) []os.FileInfo {
	names := append([]string{filepath.Join(root, config.FileName)}, dirs.PolicyFiles(root)...)
	out := make([]os.FileInfo, len(names))
	for i, n := range names {
		out[i] = statOrNil(n)
	}
	return out
}

// statOrNil is name's stat, nil where it is absent (or name is "").
func statOrNil(name string) os.FileInfo {
	if name == "" {
		return nil
	}
	fi, _ := os.Stat(name)
	return fi
}

// PolicyChanged reports whether the repository's autocoder.toml, the
// user's own file or the trust record changed since the engine's settings
// were read: its policy (denied paths, programs, verify, limits) is then
// the user's old one. An engine kept across calls reads them again
// (ReadSettingsAgain: Run does, and the MCP server before a call).
func (e *Engine) PolicyChanged() bool {
	now := policyFiles(e.Root(), e.dirs)
	if len(now) != len(e.stamp) {
		return true
	}
	for i, was := range e.stamp {
		if !gitops.SameStat(was, now[i]) {
			return true
		}
	}
	return false
}

// Run is txn.Engine.Run, with the settings read again first where they
// changed since (PolicyChanged): between the answers of `autocoder run`
// the user may untrust the repository's file, or deny a path in their own,
// and the next answer is applied as they now say. What was read again
// only narrows the settings Open read (config.Config.Within): a model's
// step may have written autocoder.toml, and what widens counts from the
// next run, with a warning that says so. Settings that no longer load (a
// TOML error) leave the ones read before in force, with a warning on the
// engine's log that says why, at each answer until they load; the branch
// prefix and the model's settings stay as the run began.
func (e *Engine) Run(ctx context.Context, items []step.Item, o txn.RunOptions) []step.Result {
	if e.PolicyChanged() {
		if err := e.ReadSettingsAgain(); err != nil {
			fmt.Fprintf(e.opts.Log, "autocoder: warning: the settings changed, and cannot be read again: %v\n", err)
			fmt.Fprintf(e.opts.Log, "autocoder: hint: the settings read before still count; mend the file, and the next answer is applied with it\n")
		}
	}
	return e.Engine.Run(ctx, items, o)
}

// ReadSettingsAgain loads the settings anew and gives the engine their
// policy (txn.Engine.SetPolicy), kept within those Open read: a path
// either denies is denied. Run calls it when PolicyChanged; so does the
// MCP server before a call. A trust the user gave since (autocoder trust:
// no step writes a trust record, which lies outside the repository or is
// denied there) is their word on the file as it is now: the settings read
// with it are the new bound.
func (e *Engine) ReadSettingsAgain() error {
	stamp, trustAt := policyFiles(e.Root(), e.dirs), statOrNil(e.dirs.TrustRecord(e.Root()))
	s, err := config.Load(e.Root(), e.dirs)
	if err != nil {
		return err
	}
	warnUntrusted(e.opts.Log, s)
	if s.Trusted && !gitops.SameStat(e.trustAt, trustAt) {
		e.first, e.trustAt = s.Config, trustAt
	}
	read := s.Config
	s.Config = read.Within(e.first)
	if gitops.SameStat(e.trustAt, trustAt) {
		// No untrust since: a verify command gone or changed is a write
		// to autocoder.toml (a step's, maybe) or the user's own file, and
		// the one the run began with still gates its steps; a step must
		// not lift it.
		s.Config.Verify.Command = e.first.Verify.Command
	}
	if !reflect.DeepEqual(s.Config, read) {
		fmt.Fprintf(e.opts.Log, "autocoder: warning: the settings changed while autocoder works; what they allow beyond those it began with, and a new branch prefix or model, count from the next run or session\n")
	}
	to, programs := engineOptions(s, e.opts)
	first := e.first
	to.Deny = func(rel string) (string, bool) {
		if pat, denied := first.Denied(rel); denied {
			return pat, true
		}
		return s.Denied(rel)
	}
	e.Engine.SetPolicy(to)
	e.Settings, e.Programs, e.stamp = s, programs, stamp
	return nil
}

// warnUntrusted says which settings of the repository's file are ignored
// because the user has not trusted it, and how to review and trust it.
func warnUntrusted(w io.Writer, s config.Settings) {
	if len(s.Ignored) == 0 {
		return
	}
	keys := make([]string, len(s.Ignored))
	for i, st := range s.Ignored {
		keys[i] = st.Key
	}
	fmt.Fprintf(w, "autocoder: warning: %s is not trusted, so its settings that run code or send secrets are ignored: %s\n",
		s.RepoFile, strings.Join(keys, ", "))
	fmt.Fprintf(w, "autocoder: hint: review what it would enable with autocoder trust --show, then run autocoder trust in the repository to let it count\n")
}
