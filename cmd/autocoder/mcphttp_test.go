package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests start `autocoder mcp --http 127.0.0.1:0` as a process, read
// the URL and the token file's path from its standard error, and talk to
// it as clients that connect by URL do; git judges the repository.

type httpServer struct {
	url, tokenFile, token string
	stderr                *bytes.Buffer // what it said at start
}

// startHTTP starts autocoder mcp --http on a free loopback port in dir.
func startHTTP(t *testing.T, dir string, args ...string) *httpServer {
	t.Helper()
	cmd := exec.Command("autocoder", append([]string{"mcp", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Dir = dir
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &httpServer{stderr: &bytes.Buffer{}}
	copied := make(chan struct{})
	var rest bytes.Buffer // what the server says after its start: read once it exited
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		pw.Close()
		<-copied
		// Under go test -race the server is built with the detector too:
		// what it finds is said on its standard error.
		if out := rest.String(); strings.Contains(out, "DATA RACE") || strings.Contains(out, "panic:") || strings.Contains(out, s.token) {
			t.Errorf("the server said:\n%s", out)
		}
	})
	lines := bufio.NewScanner(pr)
	for s.url == "" || s.tokenFile == "" {
		if !lines.Scan() {
			t.Fatalf("the server ended before naming its URL and token file:\n%s", s.stderr)
		}
		line := lines.Text()
		s.stderr.WriteString(line + "\n")
		if _, rest, ok := strings.Cut(line, "MCP over HTTP at "); ok {
			s.url, _, _ = strings.Cut(rest, " ")
		}
		if _, rest, ok := strings.Cut(line, "with the token in "); ok {
			s.tokenFile = rest
		}
	}
	go func() {
		for lines.Scan() {
			rest.WriteString(lines.Text() + "\n")
		}
		io.Copy(io.Discard, pr)
		close(copied)
	}()
	tok, err := os.ReadFile(s.tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	s.token = strings.TrimSpace(string(tok))
	return s
}

// bearer adds the token to every request of a client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func connectHTTP(t *testing.T, s *httpServer) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "autocoder-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: bearer{s.token}}}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", s.url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Several clients at once over one engine: each write is one commit on the
// work branch, the token file is the owner's only, and the token itself is
// never printed.
func TestMCPHTTPSessionsShareOneEngine(t *testing.T) {
	home := gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	s := startHTTP(t, g.Dir)
	if want := filepath.Join(home, ".config", "autocoder", "mcp-token"); s.tokenFile != want {
		t.Fatalf("token file %s, want %s", s.tokenFile, want)
	}
	for path, mode := range map[string]os.FileMode{s.tokenFile: 0o600, filepath.Dir(s.tokenFile): 0o700} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != mode {
			t.Fatalf("%s: %v %v, want mode %o", path, fi.Mode(), err, mode)
		}
	}
	if len(s.token) < 32 || strings.Contains(s.stderr.String(), s.token) {
		t.Fatalf("token %q; standard error:\n%s", s.token, s.stderr)
	}

	const n = 4
	sessions := make([]*sdk.ClientSession, n)
	for i := range sessions {
		sessions[i] = connectHTTP(t, s)
	}
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "fs_write",
				Arguments: map[string]any{"path": fmt.Sprintf("f%d.txt", i), "mode": "overwrite", "content": fmt.Sprintf("%d\n", i)}})
			if err != nil {
				errs <- err.Error()
			} else if text := resultText(res); res.IsError || !strings.HasPrefix(text, "WRITE_SUCCESS\ncommit ") {
				errs <- text
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if text, _ := connectHTTPCall(t, sessions[0], "fs_read", map[string]any{"path": "f3.txt"}); text != "3\n" {
		t.Fatalf("fs_read over HTTP: %q", text)
	}
	log := strings.Fields(g.Git("log", "--format=%H", "main..HEAD"))
	if len(log) != n || !strings.HasPrefix(g.Git("branch", "--show-current"), "autocoder/") {
		t.Fatalf("%d commits on %s, want %d (one per write)", len(log), g.Git("branch", "--show-current"), n)
	}
	g.AssertClean()
	g.Fsck()

	// A second start reads the same token.
	if s2 := startHTTP(t, g.Dir); s2.token != s.token {
		t.Fatal("a second server made a new token")
	}
}

func connectHTTPCall(t *testing.T, cs *sdk.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return resultText(res), res.IsError
}

// rawMCP is a session driven with plain HTTP requests, to send what no SDK
// client sends.
type rawMCP struct {
	t       *testing.T
	s       *httpServer
	session string
}

func (r *rawMCP) post(body string, edit func(*http.Request)) (*http.Response, string) {
	r.t.Helper()
	req, err := http.NewRequest("POST", r.s.url, strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+r.s.token)
	if r.session != "" {
		req.Header.Set("Mcp-Session-Id", r.session)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	}
	if edit != nil {
		edit(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// Every request a web page, a rebinding page or a stranger can make is
// refused with its status and no CORS header, and the repository does not
// change; the same call with everything right writes (the control).
func TestMCPHTTPRefusals(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	s := startHTTP(t, g.Dir, "--allow-origin", "https://trusted.example")
	r := &rawMCP{t: t, s: s}
	resp, body := r.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, nil)
	r.session = resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || r.session == "" {
		t.Fatalf("initialize: %d %q", resp.StatusCode, body)
	}
	if resp, body := r.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); resp.StatusCode != 202 {
		t.Fatalf("initialized: %d %q", resp.StatusCode, body)
	}
	write := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fs_write","arguments":{"path":"x.txt","mode":"overwrite","content":"x\n"}}}`
	port := s.url[len("http://127.0.0.1:") : len(s.url)-len("/mcp")]
	before := g.Snapshot()
	cases := []struct {
		name   string
		body   string
		method string
		edit   func(*http.Request)
		status int
	}{
		{"no token", write, "", func(q *http.Request) { q.Header.Del("Authorization") }, 401},
		{"a wrong token", write, "", func(q *http.Request) { q.Header.Set("Authorization", "Bearer "+strings.Repeat("x", len(s.token))) }, 401},
		{"the token as Basic", write, "", func(q *http.Request) { q.Header.Set("Authorization", "Basic "+s.token) }, 401},
		{"a web page's origin", write, "", func(q *http.Request) { q.Header.Set("Origin", "https://evil.example") }, 403},
		{"a null origin", write, "", func(q *http.Request) { q.Header.Set("Origin", "null") }, 403},
		{"a rebinding Host", write, "", func(q *http.Request) { q.Host = "evil.example:" + port }, 403},
		// A browser sends Sec-Fetch-Site on every request, and leaves
		// Origin out of some (a navigation, a no-cors GET): a page's
		// request is refused even when it carries no Origin.
		{"a cross-site request without Origin", write, "", func(q *http.Request) { q.Header.Set("Sec-Fetch-Site", "cross-site") }, 403},
		{"a same-site page without Origin", write, "", func(q *http.Request) { q.Header.Set("Sec-Fetch-Site", "same-site") }, 403},
		{"a Host on another port", write, "", func(q *http.Request) { q.Host = "127.0.0.1:1" }, 403},
		{"a preflight", "", "OPTIONS", func(q *http.Request) {
			q.Header.Set("Origin", "https://trusted.example")
			q.Header.Set("Access-Control-Request-Method", "POST")
		}, 403},
		{"an oversized body", write[:len(write)-3] + `,"pad":"` + strings.Repeat("x", 5<<20) + `"}}}`, "", nil, 413},
		{"an oversized chunked body", write[:len(write)-3] + `,"pad":"` + strings.Repeat("x", 5<<20) + `"}}}`, "", func(q *http.Request) { q.ContentLength = -1 }, 413},
	}
	for _, c := range cases {
		edit := c.edit
		if c.method != "" {
			edit = func(q *http.Request) {
				q.Method = c.method
				c.edit(q)
			}
		}
		resp, body := r.post(c.body, edit)
		if resp.StatusCode != c.status || !strings.HasPrefix(body, "autocoder: ") {
			t.Errorf("%s: %d %q, want %d", c.name, resp.StatusCode, body, c.status)
		}
		for k := range resp.Header {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Errorf("%s: CORS header %s sent", c.name, k)
			}
		}
	}
	g.AssertUnchanged(before)
	if strings.Contains(g.Git("branch", "--list", "autocoder/*"), "autocoder/") {
		t.Fatal("a refused request made a work branch")
	}

	// The control: the listed origin, localhost as the Host, the token.
	resp, body = r.post(write, func(q *http.Request) {
		q.Header.Set("Origin", "https://trusted.example")
		q.Host = "localhost:" + port
	})
	if resp.StatusCode != 200 || !strings.Contains(body, "WRITE_SUCCESS") || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("the allowed request: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	if got := g.MustRead("x.txt"); got != "x\n" {
		t.Fatalf("x.txt: %q", got)
	}
	g.Fsck()
}

// The server listens on loopback only, unless told otherwise; a token file
// others may read is refused.
func TestMCPHTTPRefusesToExpose(t *testing.T) {
	home := gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	for _, addr := range []string{"0.0.0.0:0", ":0", "example.com:0"} {
		var out, errb bytes.Buffer
		code := run([]string{"autocoder", "-C", g.Dir, "mcp", "--http", addr}, strings.NewReader(""), &out, &errb)
		if code != 4 || !strings.Contains(errb.String(), "--allow-remote") {
			t.Errorf("%s: exit %d\n%s", addr, code, errb.String())
		}
	}
	// An allowed origin is one page's exact origin: "null" is every
	// sandboxed frame and file page, "*" or a path no browser sends.
	for _, origin := range []string{"null", "*", "https://example.com/", "example.com", "https://*.example.com"} {
		var out, errb bytes.Buffer
		code := run([]string{"autocoder", "-C", g.Dir, "mcp", "--http", "127.0.0.1:0", "--allow-origin", origin}, strings.NewReader(""), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), "--allow-origin") || strings.Contains(errb.String(), "MCP over HTTP at") {
			t.Errorf("--allow-origin %s: exit %d\n%s", origin, code, errb.String())
		}
	}
	tok := filepath.Join(home, ".config", "autocoder", "mcp-token")
	os.MkdirAll(filepath.Dir(tok), 0o700)
	os.WriteFile(tok, []byte(strings.Repeat("t", 43)+"\n"), 0o644)
	if err := os.Chmod(tok, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"autocoder", "-C", g.Dir, "mcp", "--http", "127.0.0.1:0"}, strings.NewReader(""), &out, &errb); code != 4 ||
		!strings.Contains(errb.String(), "chmod 600 "+tok) {
		t.Fatalf("a token file others may read: exit %d\n%s", code, errb.String())
	}
}

// The TypeScript SDK's Streamable HTTP client (what Claude Code and VS Code
// build on) connects with the token, lists the tools and writes a file: one
// commit. It is installed from the npm registry with the committed lock
// file into a temporary folder; without npm there is no such client to run.
func TestMCPHTTPTypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("installs the TypeScript SDK with npm ci: slow; runs without -short")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed: the TypeScript SDK's client cannot be installed here (the Go SDK's client is tested above)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the TypeScript SDK's client cannot run here")
	}
	cache, _ := os.UserCacheDir() // before Isolate: npm's cache survives the test
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	dir := t.TempDir()
	for _, f := range []string{"package.json", "package-lock.json", "client.mjs"} {
		data, err := os.ReadFile(filepath.Join("testdata", "mcp-ts-client", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	install := exec.Command(npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts")
	install.Dir = dir
	if cache != "" {
		install.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(cache, "autocoder-test-npm"))
	}
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm ci: %v\n%s", err, out)
	}
	s := startHTTP(t, g.Dir)
	client := exec.Command(node, "client.mjs", s.url, s.token)
	client.Dir = dir
	out, err := client.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "tools: 12") || !strings.Contains(string(out), "WRITE_SUCCESS") {
		t.Fatalf("the TypeScript client: %v\n%s", err, out)
	}
	if got := g.MustRead("hello.txt"); got != "hello from TypeScript\n" {
		t.Fatalf("hello.txt: %q", got)
	}
	if n := len(strings.Fields(g.Git("log", "--format=%H", "main..HEAD"))); n != 1 {
		t.Fatalf("%d commits, want 1", n)
	}
	g.AssertClean()
	g.Fsck()

	// Without the token the same client is refused, and nothing changes.
	before := g.Snapshot()
	client = exec.Command(node, "client.mjs", s.url, "not-the-token")
	client.Dir = dir
	if out, err := client.CombinedOutput(); err == nil || !strings.Contains(string(out), "401") {
		t.Fatalf("the TypeScript client with a wrong token: %v\n%s", err, out)
	}
	g.AssertUnchanged(before)
}
