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
	"strings"
	"time"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/runner"
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
	programs, verify := runner.New(s, o.AllowPrograms)
	e, err := txn.Open(ctx, repo, txn.Options{
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
	})
	if err != nil {
		repo.Close()
		return nil, err
	}
	return &Engine{Engine: e, Settings: s, Programs: programs}, nil
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
