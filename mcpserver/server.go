// Package mcpserver serves autocoder's tools (the FlyCode tool set of
// protocol/mcp) over MCP, on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): its stdio transport, its
// protocol-version negotiation, keepalive and concurrent requests.
//
// Start with Server and Run (this file). A call's arguments are read by
// protocol/mcp's tool table (mcp.ReadCall), so that a tool call has the
// same contract over MCP as in a response; its step runs on one engine for
// the session (txn.Engine), opened on the repository that repo.go finds;
// result.go turns the step's result into the tool's answer, within a size
// cap.
package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/autocoder/autocoder"
	"github.com/autocoder/autocoder/protocol/mcp"
	"github.com/autocoder/autocoder/step"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults for the Options left zero.
const (
	// DefaultMaxResult caps a tool result's text. JSON may escape a byte
	// into six (\u0000), so 1 MiB stays well under the SDK's buffer for one
	// message (16 MiB) whatever the content, and under what a model's
	// context can use in one answer.
	DefaultMaxResult = 1 << 20
	// DefaultLockWait is how long a call waits while another autocoder
	// (another session, the CLI) works in the same repository: long enough
	// for other calls and short programs, short enough that a client does
	// not time out first.
	DefaultLockWait = 20 * time.Second
	// DefaultKeepAlive is how often the server pings the client; three
	// unanswered pings in a row end the session as a client gone away.
	DefaultKeepAlive = 30 * time.Second
)

// Options configure a Server.
type Options struct {
	// Version is the serverInfo version.
	Version string
	// Root is the repository folder the user configured (--root, -C);
	// empty: the client's roots, then Dir.
	Root string
	// Dir is the working folder the client started the server in.
	Dir string
	// Engine is how the session's engine is opened (autocoder.Open) on
	// the repository that contains the folder the server picks, with that
	// repository's settings: the work branch, whether every program may
	// run, where notes go. The server keeps it for the session (Session
	// is set: the index is written split) and releases its lock between
	// calls.
	Engine autocoder.Options
	// MaxResult caps a tool result's text in bytes; zero: DefaultMaxResult.
	MaxResult int
	// LockWait is how long a call waits for another autocoder working in
	// the repository; zero: DefaultLockWait.
	LockWait time.Duration
	// KeepAlive is the interval of the server's pings; zero:
	// DefaultKeepAlive, negative: none.
	KeepAlive time.Duration
	// Log receives the SDK's warnings and errors; nil discards them.
	Log io.Writer
}

// Server is one MCP session's server: one engine, one call at a time on it
// (pings, lists and cancellations are answered meanwhile).
type Server struct {
	opts Options
	sdk  *sdk.Server

	// turn is held by the call that uses the engine; a call waits for it,
	// or for its own cancellation.
	turn chan struct{}
	repo repoState // the engine; only with turn held
	// rootsStale: the client's roots changed since the engine was opened.
	rootsStale atomic.Bool

	idPrefix string
	seq      atomic.Int64

	// calls counts the tool calls running, so that Run returns only after
	// each has committed or rolled back.
	calls sync.WaitGroup
	// stop ends the calls still running when the session ends.
	stop     context.Context
	stopCall context.CancelCauseFunc
	// ended ends the calls that run programs at the end of input; the
	// others finish and are answered (see drained).
	ended    context.Context
	endInput context.CancelCauseFunc
}

// New makes the server and registers the tools.
func New(opts Options) *Server {
	if opts.MaxResult <= 0 {
		opts.MaxResult = DefaultMaxResult
	}
	if opts.LockWait <= 0 {
		opts.LockWait = DefaultLockWait
	}
	if opts.KeepAlive == 0 {
		opts.KeepAlive = DefaultKeepAlive
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	s := &Server{opts: opts, turn: make(chan struct{}, 1)}
	var b [3]byte
	rand.Read(b[:])
	s.idPrefix = "mcp-" + hex.EncodeToString(b[:]) + "-"
	s.stop, s.stopCall = context.WithCancelCause(context.Background())
	s.ended, s.endInput = context.WithCancelCause(context.Background())
	so := &sdk.ServerOptions{
		Instructions: "Each write tool call becomes one commit on the autocoder work branch of the repository " +
			"(the user reviews it with git and can undo it); paths are relative to the repository root, or absolute inside it.",
		Logger:                    slog.New(newLogHandler(opts.Log)),
		KeepAliveFailureThreshold: 3,
		Capabilities:              &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
		RootsListChangedHandler: func(ctx context.Context, _ *sdk.RootsListChangedRequest) {
			s.rootsStale.Store(true)
		},
	}
	if opts.KeepAlive > 0 {
		so.KeepAlive = opts.KeepAlive
	}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "autocoder", Title: "autocoder", Version: opts.Version}, so)
	for _, d := range mcp.ToolDefs() {
		d := d
		destructive, openWorld := d.Destructive, d.OpenWorld
		s.sdk.AddTool(&sdk.Tool{
			Name:        d.MCPName,
			Title:       d.Title,
			Description: d.Description,
			InputSchema: d.InputSchema,
			Annotations: &sdk.ToolAnnotations{Title: d.Title, ReadOnlyHint: d.ReadOnly,
				DestructiveHint: &destructive, IdempotentHint: d.Idempotent, OpenWorldHint: &openWorld},
		}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return s.call(ctx, req, d.Name)
		})
	}
	// The dotted names of the FlyCode dialect (fs.read) are accepted too,
	// without listing every tool twice: a call is renamed before the SDK
	// looks the tool up.
	s.sdk.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if ct, ok := req.(*sdk.CallToolRequest); ok && ct.Params != nil && strings.Contains(ct.Params.Name, ".") {
				ct.Params.Name = strings.Replace(ct.Params.Name, ".", "_", 1)
			}
			return next(ctx, method, req)
		}
	})
	return s
}

// Run serves one session on t until the client goes away (end of input, a
// closed pipe, keepalive pings unanswered) or ctx ends (a signal). At the
// end of input every request read before it is answered first (see
// drained). Then the calls still running are cancelled: a step before its commit point rolls
// back, a program is stopped with everything it started; Run returns once
// each has finished, with the engine closed.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	// A signal ends the session: the SDK waits for the running calls, so
	// they are cancelled first.
	defer context.AfterFunc(ctx, func() { s.stopCall(fmt.Errorf("autocoder was stopped: %w", context.Cause(ctx))) })()
	err := s.sdk.Run(ctx, drained{Transport: t, ended: func() { s.endInput(errors.New("the client went away")) }})
	s.stopCall(fmt.Errorf("the client went away"))
	s.calls.Wait()
	s.turn <- struct{}{}
	s.repo.close()
	if err == context.Canceled || err == context.DeadlineExceeded || err == io.EOF {
		err = nil
	}
	return err
}

// call runs one tools/call. Arguments that are not an object are a
// protocol error (-32602); every other failure is a result with isError,
// which the model reads.
func (s *Server) call(ctx context.Context, req *sdk.CallToolRequest, tool string) (*sdk.CallToolResult, error) {
	s.calls.Add(1)
	defer s.calls.Done()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(s.stop, func() { cancel(context.Cause(s.stop)) })()

	args := json.RawMessage(strings.TrimSpace(string(req.Params.Arguments)))
	if len(args) > 0 && string(args) != "null" && args[0] != '{' {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("invalid params: the arguments of %s must be a JSON object", req.Params.Name)}
	}
	st, err := mcp.ReadCall(s.idPrefix+fmt.Sprint(s.seq.Add(1)), tool, args)
	if err != nil {
		return errorResult(mcp.CodeInvalidInput + ": " + withHint(err.Error(), step.HintOf(err))), nil
	}
	if len(st.Programs) > 0 {
		// A client gone does not wait for a program: at the end of input
		// it is stopped with everything it started, as at a cancel.
		defer context.AfterFunc(s.ended, func() { cancel(context.Cause(s.ended)) })()
	}
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return errorResult("cancelled before it started: " + context.Cause(ctx).Error()), nil
	}
	defer func() { <-s.turn }()
	e, err := s.engine(ctx, req.Session)
	if err != nil {
		return errorResult(err.Error()), nil
	}
	if err := e.Acquire(ctx, s.opts.LockWait); err != nil {
		return errorResult(withHint(err.Error(), step.HintOf(err))), nil
	}
	r := e.Apply(ctx, st)
	if err := e.Release(); err != nil && r.Error == "" {
		r.Error = "committed, but the index was not written: " + err.Error()
	}
	text, isErr := mcp.CallResult(r)
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s.capped(text, st)}}, IsError: isErr}, nil
}

func errorResult(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: msg}}, IsError: true}
}

func withHint(msg, hint string) string {
	if hint == "" {
		return msg
	}
	return msg + "\nhint: " + hint
}
