package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/autocoder/autocoder"
	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// repoState is the session's engine, and where its repository came from.
// Only the call holding Server.turn touches it.
type repoState struct {
	ae        *autocoder.Engine
	fromRoots bool
}

func (r *repoState) close() {
	if r.ae != nil {
		r.ae.Close()
		r.ae = nil
	}
}

// set keeps ae as the session's engine.
func (r *repoState) set(ae *autocoder.Engine, fromRoots bool) {
	r.ae, r.fromRoots = ae, fromRoots
}

// NotConfiguredError is a session without a repository: the server was
// started outside one (Claude Desktop starts servers in /), with no root
// configured and none from the client. Every tool call answers it, so the
// user learns how to configure the server.
type NotConfiguredError struct {
	Tried []string // where the server looked, and why each was not a repository
}

func (e *NotConfiguredError) Error() string {
	return "autocoder has no git repository to work in: " + strings.Join(e.Tried, "; ")
}

// Hint says how to configure the server.
func (e *NotConfiguredError) Hint() string {
	return `give the repository's folder in this server's entry of the MCP client's configuration, ` +
		`e.g. "args": ["mcp", "--root", "/path/to/repository"], or open the repository as the client's workspace ` +
		`(which the client sends as its root), then restart the server`
}

// Class: the server cannot work as configured.
func (e *NotConfiguredError) Class() step.Class { return step.ClassUsage }

// engine returns the session's engine, opening it on the first call: on
// the configured root, else on the client's first root inside a
// repository, else on the working folder.
func (s *Server) engine(ctx context.Context, ss *sdk.ServerSession) (*txn.Engine, error) {
	if s.rootsStale.Swap(false) && s.repo.fromRoots {
		s.repo.close() // the client's roots changed: find the repository again
	}
	if s.repo.ae != nil && s.repo.ae.PolicyChanged() {
		// The user changed autocoder.toml, their own file or its trust:
		// read them again, within what the session began with (a call of
		// the session may have written autocoder.toml). Where they no
		// longer load, the call says why and changes nothing.
		if err := s.repo.ae.ReadSettingsAgain(); err != nil {
			return nil, withHintErr(err)
		}
	}
	if s.repo.ae != nil {
		return s.repo.ae.Engine, nil
	}
	open := func(dir string) (*autocoder.Engine, error) {
		o := s.opts.Engine
		o.Session = true
		ae, err := autocoder.Open(ctx, dir, o)
		if err != nil {
			return nil, err
		}
		// Between calls the lock is free for the CLI, git and other
		// sessions; each call takes it again (Acquire).
		if err := ae.Release(); err != nil {
			ae.Close()
			return nil, err
		}
		return ae, nil
	}
	notRepo := func(err error) bool {
		var nr *gitops.NotRepoError
		return errors.As(err, &nr)
	}
	if s.opts.Root != "" {
		e, err := open(s.opts.Root)
		if notRepo(err) {
			return nil, withHintErr(&NotConfiguredError{Tried: []string{"the configured root " + s.opts.Root + " is not inside a git repository"}})
		}
		if err != nil {
			return nil, withHintErr(err)
		}
		s.repo.set(e, false)
		return e.Engine, nil
	}
	var tried []string
	if ss != nil && declaresRoots(ss) {
		roots, err := listRoots(ctx, ss)
		for _, dir := range roots {
			e, err := open(dir)
			if notRepo(err) {
				tried = append(tried, "the client's root "+dir+" is not inside a git repository")
				continue
			}
			if err != nil {
				return nil, withHintErr(err)
			}
			s.repo.set(e, true)
			return e.Engine, nil
		}
		if err != nil {
			tried = append(tried, "the client sent no roots ("+err.Error()+")")
		}
	}
	e, err := open(s.opts.Dir)
	if notRepo(err) {
		tried = append(tried, "the server was started in "+s.opts.Dir+", which is not inside a git repository")
		return nil, withHintErr(&NotConfiguredError{Tried: tried})
	}
	if err != nil {
		return nil, withHintErr(err)
	}
	s.repo.set(e, false)
	return e.Engine, nil
}

// declaresRoots reports whether the client said at initialize that it has
// roots. A server may send only the requests a client declared; one that
// did not (a script writing JSON-RPC lines, a client without roots) does
// not answer roots/list, and every call would wait for it.
func declaresRoots(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	//lint:ignore SA1019 roots are what today's clients send (see listRoots)
	return p != nil && p.Capabilities != nil && p.Capabilities.RootsV2 != nil
}

// listRoots asks the client for its roots (folders it works in), as local
// paths. A client without roots answers with an error; one that does not
// answer is not waited for long.
func listRoots(ctx context.Context, ss *sdk.ServerSession) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// Roots are deprecated from protocol 2026-07-28 on (SEP-2577), and the
	// SDK refuses them there; the clients in use today send them.
	//lint:ignore SA1019 the issue asks for the client's roots
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, r := range res.Roots {
		if p, ok := fileURLPath(r.URI); ok {
			dirs = append(dirs, p)
		}
	}
	return dirs, nil
}

// fileURLPath turns a file:// URI into a local path.
func fileURLPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
		return "", false
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // file:///C:/x
	}
	return filepath.FromSlash(p), p != ""
}

// withHintErr folds an error's hint into its text: a tool result is one
// text, read by a model.
func withHintErr(err error) error {
	if h := step.HintOf(err); h != "" {
		return fmt.Errorf("%s\nhint: %s", err.Error(), h)
	}
	return err
}
