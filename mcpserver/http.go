package mcpserver

// MCP over Streamable HTTP, for the clients that connect by URL (Claude
// Code, Cursor, VS Code, a tunnel for a cloud client). A port on the
// loopback interface is reachable by every web page the user opens and by
// every local account, so each request passes a guard before the SDK's
// handler sees it: no CORS preflight is ever allowed, a browser's Origin
// only when the user listed it, the Host only when it names this server
// (a DNS-rebinding page's Host names the attacker's domain), the bearer
// token compared in constant time, the body size capped.

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/step"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPPath is where the server answers: http://HOST:PORT/mcp.
const HTTPPath = "/mcp"

// DefaultMaxBody caps a request's body: far above any tool call (a
// response is capped at a few MiB by autocoder.toml), far below what would
// hurt.
const DefaultMaxBody = 4 << 20

// TokenFileName is the token's file in the user's autocoder folder.
const TokenFileName = "mcp-token"

// HTTPOptions configure Serve.
type HTTPOptions struct {
	// Token is the bearer token every request must carry
	// (Authorization: Bearer TOKEN).
	Token string
	// Origins are the browser origins allowed ("https://example.com",
	// exactly as a browser sends them). A request that carries an Origin
	// not listed is refused; one without Origin (every non-browser client)
	// passes this check.
	Origins []string
	// Hosts are Host header values allowed besides 127.0.0.1:PORT,
	// localhost:PORT and [::1]:PORT (a tunnel's name, a LAN address).
	Hosts []string
	// MaxBody caps a request body in bytes (413 beyond); zero:
	// DefaultMaxBody.
	MaxBody int64
}

// TokenFile is the path of the MCP token file in the user's folder.
func TokenFile() (string, error) {
	dir, err := config.UserDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, TokenFileName), nil
}

// LoadToken reads the bearer token from path, making it on first use: 32
// random bytes (crypto/rand) in base64url, in a file only its owner may
// read. A token file others may read is refused.
func LoadToken(path string) (string, error) {
	data, err := config.ReadUserFile(path, true)
	if errors.Is(err, fs.ErrNotExist) {
		var b [32]byte
		rand.Read(b[:])
		tok := base64.RawURLEncoding.EncodeToString(b[:])
		if err := config.WriteUserFile(path, []byte(tok+"\n"), false); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("write the MCP token to %s: %w", path, err)
		}
		data, err = config.ReadUserFile(path, true) // another server may have made it first
	}
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(data))
	if len(tok) < 32 || strings.ContainsFunc(tok, func(r rune) bool { return r <= ' ' || r > '~' }) {
		return "", &step.Error{C: step.ClassUsage, Msg: "the MCP token in " + path + " is not usable (it must be at least 32 printable characters, no spaces)",
			Fix: "remove " + path + ": autocoder makes a new one at its next start (clients then need the new token)"}
	}
	return tok, nil
}

// Serve serves MCP over Streamable HTTP on ln until ctx ends (a signal) or
// the listener fails: every client that connects is a session of its own,
// and all of them share this server's engine, one call at a time, each
// write one commit. The repository is Options.Root (a client's roots are
// not asked for: several clients may send different ones). When Serve
// returns, the calls still running were cancelled and have finished, and
// the engine is closed.
func (s *Server) Serve(ctx context.Context, ln net.Listener, o HTTPOptions) error {
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if s.opts.Root == "" {
		s.opts.Root = s.opts.Dir
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk }, &sdk.StreamableHTTPOptions{
		Logger:              slog.New(slog.NewTextHandler(s.opts.Log, &slog.HandlerOptions{Level: slog.LevelWarn})),
		MaxRequestBodyBytes: o.MaxBody,
		// The guard checks Host itself, against a stricter list (and a
		// tunnel's name when the user gives one).
		DisableLocalhostProtection: true,
	})
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, h)
	srv := &http.Server{
		Handler:           newGuard(o, ln.Addr()).wrap(mux),
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.New(s.opts.Log, "autocoder: http: ", 0),
		BaseContext:       func(net.Listener) context.Context { return s.stop },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
		s.stopCall(fmt.Errorf("autocoder was stopped: %w", context.Cause(ctx)))
	case err = <-errc:
		s.stopCall(fmt.Errorf("the server stopped: %w", err))
	}
	srv.Close()
	s.calls.Wait()
	s.turn <- struct{}{}
	s.repo.close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// guard is the check every request passes before MCP sees it.
type guard struct {
	token   []byte
	origins map[string]bool
	hosts   map[string]bool
	maxBody int64
}

func newGuard(o HTTPOptions, addr net.Addr) *guard {
	g := &guard{token: []byte(o.Token), origins: map[string]bool{}, hosts: map[string]bool{}, maxBody: o.MaxBody}
	for _, or := range o.Origins {
		g.origins[or] = true
	}
	port := ""
	if ta, ok := addr.(*net.TCPAddr); ok {
		port = strconv.Itoa(ta.Port)
		if !ta.IP.IsLoopback() && !ta.IP.IsUnspecified() {
			g.hosts[net.JoinHostPort(ta.IP.String(), port)] = true // the address the user chose to bind
		}
	}
	for _, h := range []string{"127.0.0.1", "localhost", "::1"} {
		g.hosts[net.JoinHostPort(h, port)] = true
	}
	for _, h := range o.Hosts {
		g.hosts[strings.ToLower(h)] = true
	}
	return g
}

// refuse answers a refused request: a status and one line saying why and
// what to do. No CORS header is ever sent, so a web page reads nothing.
func refuse(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	io.WriteString(w, "autocoder: "+msg+"\n")
}

func (g *guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			// A CORS preflight: only a web page sends one, and the answer
			// without CORS headers keeps its request from being made.
			refuse(w, http.StatusForbidden, "cross-origin requests are not allowed (no CORS preflight is answered)")
			return
		}
		if !g.hosts[strings.ToLower(r.Host)] {
			refuse(w, http.StatusForbidden, fmt.Sprintf("the Host %q is not this server's; a page that renamed it (DNS rebinding) is refused. "+
				"A tunnel or another name: start the server with --allow-host NAME:PORT", r.Host))
			return
		}
		if origin, ok := r.Header["Origin"]; ok && (len(origin) != 1 || !g.origins[origin[0]]) {
			refuse(w, http.StatusForbidden, fmt.Sprintf("requests from the browser origin %q are refused; "+
				"to allow a page you trust, start the server with --allow-origin %s", strings.Join(origin, ", "), strings.Join(origin, "")))
			return
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "none" && r.Header.Get("Origin") == "" {
			// A browser marks every request it makes with Sec-Fetch-Site,
			// and leaves Origin out of some a page makes (a navigation, a
			// no-cors GET): "none" is the user's own (an address typed),
			// anything else a page's, which only a listed Origin admits.
			refuse(w, http.StatusForbidden, fmt.Sprintf("a web page's request (Sec-Fetch-Site: %s) without an Origin is refused; "+
				"a client that is not a browser sends no Sec-Fetch-Site", site))
			return
		}
		if !g.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="autocoder"`)
			refuse(w, http.StatusUnauthorized, "a bearer token is required: send the header Authorization: Bearer TOKEN, "+
				"with the token from the file autocoder mcp --http named when it started")
			return
		}
		if r.ContentLength > g.maxBody {
			refuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", g.maxBody))
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			// Read whole (within the cap) before MCP sees it, so that a
			// body too large is refused with 413 whatever its framing.
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.maxBody))
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				refuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", g.maxBody))
				return
			}
			if err != nil {
				refuse(w, http.StatusBadRequest, "the request body could not be read: "+err.Error())
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(w, r)
	})
}

// authorized compares the bearer token in constant time.
func (g *guard) authorized(r *http.Request) bool {
	auth := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return len(g.token) > 0 && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), g.token) == 1
}

// CheckOrigins checks the origins the user allows (--allow-origin): each
// must be one page's origin exactly as a browser sends it,
// scheme://host[:port]. "null" is refused: a browser sends it for every
// sandboxed frame, data: and file: page, whatever site made them; so is a
// pattern or a path, which would never match and only seem to allow.
func CheckOrigins(origins []string) error {
	for _, or := range origins {
		u, err := url.Parse(or)
		if err != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "" || u.User != nil || u.Path != "" || u.RawQuery != "" ||
			u.Fragment != "" || strings.ContainsAny(u.Host, "*") || or != strings.ToLower(u.Scheme)+"://"+u.Host {
			return &step.Error{C: step.ClassUsage, Msg: fmt.Sprintf("--allow-origin %q is not a page's origin (scheme://host[:port], as a browser sends it; null is every sandboxed page's)", or),
				Fix: "name one page's origin, e.g. --allow-origin https://example.com (no path, no '*', not null); repeat the flag for several"}
		}
	}
	return nil
}

// DefaultHTTPAddr is where `autocoder mcp --http` listens without ADDR.
const DefaultHTTPAddr = "127.0.0.1:8767"

// Listen listens on addr (HOST:PORT; PORT 0 picks a free one). A host that
// is not a loopback address (an interface of the network, ":PORT" for all
// of them, a name other than localhost) is refused unless allowRemote: the
// token is then all that stands between the network and the repository.
func Listen(addr string, allowRemote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &step.Error{C: step.ClassUsage, Msg: "the address " + strconv.Quote(addr) + " is not HOST:PORT", Err: err,
			Fix: "Try: autocoder mcp --http " + DefaultHTTPAddr}
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || ip != nil && ip.IsLoopback()
	if !loopback && !allowRemote {
		return nil, &step.Error{C: step.ClassRefused,
			Msg: "refusing to listen on " + addr + ": it is reachable from other machines, not only this one",
			Fix: "listen on 127.0.0.1 (the default), or pass --allow-remote if you mean it (the token is then the only protection: prefer a tunnel to 127.0.0.1)"}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &step.Error{C: step.ClassRefused, Msg: "cannot listen on " + addr, Err: err,
			Fix: "choose another port, e.g. autocoder mcp --http 127.0.0.1:0 (a free one)"}
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); ok && !ta.IP.IsLoopback() && !allowRemote {
		ln.Close() // a name that resolved elsewhere
		return nil, &step.Error{C: step.ClassRefused, Msg: "refusing to listen on " + ln.Addr().String() + ": not a loopback address",
			Fix: "listen on 127.0.0.1 (the default)"}
	}
	return ln, nil
}
