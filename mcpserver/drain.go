package mcpserver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// drained is a transport whose end of input waits for the answers: a
// client that sends its requests and closes its side at once (a script:
// printf '...' | autocoder mcp) gets an answer to every request read before
// the end, and the writes among them are done. Told of the end at once, the
// SDK cancels the requests in flight and refuses those queued, so such a
// client got only the first answer and no write was made. ended is called
// once, at the end of input (the server stops its programs then: a client
// gone does not wait for them).
type drained struct {
	sdk.Transport
	ended func()
}

func (t drained) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: c, calls: map[any]bool{}, asked: map[any]bool{}, ended: t.ended,
		changed: make(chan struct{}), closed: make(chan struct{})}, nil
}

// drainConn holds back the end of input (a failed Read) until no request
// read is left unanswered. It passes the end on at once when an answer can
// no longer come: the server asked the client something that the client,
// gone, cannot answer (a ping, roots/list), a write failed, or the
// connection was closed.
type drainConn struct {
	sdk.Connection
	mu      sync.Mutex
	calls   map[any]bool // IDs of the client's calls read and not answered yet
	asked   map[any]bool // IDs of the server's calls the client has not answered yet
	broken  bool         // a write failed
	ended   func()
	changed chan struct{}
	closed  chan struct{}
	once    sync.Once
}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if err == nil {
		c.update(func() {
			switch m := m.(type) {
			case *jsonrpc.Request:
				if m.ID.IsValid() {
					c.calls[m.ID.Raw()] = true
				}
			case *jsonrpc.Response:
				delete(c.asked, m.ID.Raw())
			}
		})
		return m, nil
	}
	if c.ended != nil {
		c.ended()
	}
	for {
		c.mu.Lock()
		done := len(c.calls) == 0 || len(c.asked) > 0 || c.broken
		ch := c.changed
		c.mu.Unlock()
		if done {
			return nil, err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, err
		case <-c.closed:
			return nil, err
		}
	}
}

func (c *drainConn) Write(ctx context.Context, m jsonrpc.Message) error {
	err := c.Connection.Write(ctx, m)
	c.update(func() {
		switch m := m.(type) {
		case *jsonrpc.Response:
			delete(c.calls, m.ID.Raw())
		case *jsonrpc.Request:
			if m.ID.IsValid() {
				c.asked[m.ID.Raw()] = true
			}
		}
		c.broken = c.broken || err != nil
	})
	return err
}

func (c *drainConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

// update runs f under the lock and wakes a Read that waits.
func (c *drainConn) update(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
	close(c.changed)
	c.changed = make(chan struct{})
}

// logHandler writes the SDK's log records as autocoder writes its own
// messages ("autocoder: error: duplicate initialized notification
// (method=x)"), so that standard error holds one format, not slog's
// "time=… level=ERROR msg=…" beside it.
type logHandler struct {
	w     io.Writer
	mu    *sync.Mutex
	attrs []slog.Attr
	group string
}

func newLogHandler(w io.Writer) *logHandler { return &logHandler{w: w, mu: &sync.Mutex{}} }

func (h *logHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *logHandler) Handle(_ context.Context, r slog.Record) error {
	word := "warning"
	if r.Level >= slog.LevelError {
		word = "error"
	}
	var kv []string
	add := func(a slog.Attr) {
		if !a.Equal(slog.Attr{}) {
			kv = append(kv, a.Key+"="+a.Value.Resolve().String())
		}
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(func(a slog.Attr) bool {
		if h.group != "" {
			a.Key = h.group + "." + a.Key
		}
		add(a)
		return true
	})
	line := "autocoder: " + word + ": " + r.Message
	if len(kv) > 0 {
		line += " (" + strings.Join(kv, ", ") + ")"
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := fmt.Fprintln(h.w, strings.ReplaceAll(line, "\n", " "))
	return err
}

func (h *logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	n := *h
	n.attrs = append(append([]slog.Attr{}, h.attrs...), as...)
	if h.group != "" {
		for i := len(h.attrs); i < len(n.attrs); i++ {
			n.attrs[i].Key = h.group + "." + n.attrs[i].Key
		}
	}
	return &n
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	n := *h
	if n.group != "" {
		name = n.group + "." + name
	}
	n.group = name
	return &n
}
