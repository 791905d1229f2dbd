package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests drive `autocoder mcp` (the test binary, which TestMain makes
// the autocoder command on PATH) with the Go SDK's own client over stdio, as
// an editor or a chat application does, and let git judge the repository
// afterwards.

type mcpClient struct {
	t     *testing.T
	cs    *sdk.ClientSession
	cmd   *exec.Cmd
	stdin io.Closer // closing it is the client going away
}

// startMCP starts `autocoder mcp args...` in dir and connects a client;
// roots, when given, are the client's MCP roots (sent with the protocol
// version of today's clients: the 2026-07-28 one has no roots).
func startMCP(t *testing.T, dir string, roots []string, args ...string) *mcpClient {
	t.Helper()
	return startCommand(t, dir, roots, "autocoder", append([]string{"mcp"}, args...)...)
}

// startCommand is startMCP for a whole command line, as a client's
// configuration gives it.
func startCommand(t *testing.T, dir string, roots []string, name string, args ...string) *mcpClient {
	t.Helper()
	return startWith(t, dir, roots, nil, "", name, args...)
}

// startWith is startCommand with the client's options and protocol version.
func startWith(t *testing.T, dir string, roots []string, copts *sdk.ClientOptions, version, name string, args ...string) *mcpClient {
	t.Helper()
	cmd, stdin, stdout := startPiped(t, dir, name, args...)
	c := sdk.NewClient(&sdk.Implementation{Name: "autocoder-test", Version: "1"}, copts)
	var opts *sdk.ClientSessionOptions
	if version != "" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
	}
	for _, r := range roots {
		//lint:ignore SA1019 roots are what today's clients send
		c.AddRoots(&sdk.Root{URI: "file://" + r})
		opts = &sdk.ClientSessionOptions{ProtocolVersion: "2025-06-18"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &sdk.IOTransport{Reader: stdout, Writer: stdin}, opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	m := &mcpClient{t: t, cs: cs, cmd: cmd, stdin: stdin}
	t.Cleanup(func() { m.close() })
	return m
}

// startPiped starts a server process in dir, with pipes to its standard
// input and output (its standard error is the test's).
func startPiped(t *testing.T, dir, name string, args ...string) (*exec.Cmd, io.WriteCloser, io.ReadCloser) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdin, stdout
}

// close ends the session as a client does that is done: it closes the
// server's input and waits for the server to exit.
func (m *mcpClient) close() error {
	m.stdin.Close()
	if m.cmd.ProcessState != nil {
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- m.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		m.cmd.Process.Kill()
		return fmt.Errorf("the server did not exit")
	}
}

// call calls a tool and returns its text and isError; a protocol error
// fails the test.
func (m *mcpClient) call(name string, args any) (string, bool) {
	m.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := m.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		m.t.Fatalf("%s: %v", name, err)
	}
	return resultText(res), res.IsError
}

func resultText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func (m *mcpClient) mustCall(name string, args any) string {
	m.t.Helper()
	text, isErr := m.call(name, args)
	if isErr {
		m.t.Fatalf("%s: %s", name, text)
	}
	return text
}

func TestMCPToolsAndCalls(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	m := startMCP(t, g.Dir, nil)
	ctx := context.Background()

	tools, err := m.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 12 {
		t.Fatalf("%d tools, want 12", len(tools.Tools))
	}
	for _, tool := range tools.Tools {
		a := tool.Annotations
		if strings.Contains(tool.Name, ".") || tool.Title == "" || a == nil || a.DestructiveHint == nil {
			t.Fatalf("tool %q: title %q annotations %+v", tool.Name, tool.Title, a)
		}
		read := map[string]bool{"fs_ls": true, "fs_read": true, "fs_search": true, "fs_diff": true}[tool.Name]
		if a.ReadOnlyHint != read || (read && *a.DestructiveHint) {
			t.Errorf("%s: readOnlyHint %v destructiveHint %v", tool.Name, a.ReadOnlyHint, *a.DestructiveHint)
		}
	}

	text := m.mustCall("fs_write", map[string]any{"path": "hello.txt", "mode": "overwrite", "content": "hello\n"})
	if !strings.HasPrefix(text, "WRITE_SUCCESS\ncommit ") {
		t.Fatalf("fs_write: %q", text)
	}
	// The dotted name of the dialect is accepted too.
	if text := m.mustCall("fs.read", map[string]any{"path": "hello.txt"}); text != "hello\n" {
		t.Fatalf("fs.read: %q", text)
	}
	if text, isErr := m.call("fs_mv", map[string]any{"src": "a.txt", "dest": "b.txt"}); !isErr || !strings.Contains(text, "INVALID_INPUT") || !strings.Contains(text, "fromPath") {
		t.Fatalf("fs_mv with src/dest: %v %q", isErr, text)
	}
	if text, isErr := m.call("fs_write", map[string]any{"path": "/etc/evil", "mode": "overwrite", "content": "x"}); !isErr || !strings.HasPrefix(text, "FORBIDDEN: ") {
		t.Fatalf("a write outside the repository: %v %q", isErr, text)
	}
	// A batch whose second file is refused: the first was written, then
	// rolled back with the call, and the answer says so.
	if text, isErr := m.call("fs_writeBatch", map[string]any{"files": []any{
		map[string]any{"path": "first.txt", "content": "1\n"}, map[string]any{"path": ".git/hooks/x", "content": "2\n"}}}); !isErr ||
		!strings.HasPrefix(text, "FORBIDDEN: ") || !strings.Contains(text, "rolled back, not applied: write first.txt") {
		t.Fatalf("a batch refused halfway: %v %q", isErr, text)
	}
	if _, ok := g.Read("first.txt"); ok {
		t.Fatal("first.txt of the refused batch is there")
	}
	// Programs are off: the refusal says what to do, and names no flag.
	if text, isErr := m.call("shell_exec", map[string]any{"command": "true"}); !isErr || strings.Contains(text, "--") || !strings.Contains(text, "autocoder.toml") {
		t.Fatalf("a program refused: %v %q", isErr, text)
	}

	// Protocol errors are JSON-RPC errors, -32602.
	for name, args := range map[string]any{"no_such_tool": map[string]any{}, "fs_read": "not an object"} {
		_, err := m.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s(%v): %v, want a -32602 error", name, args, err)
		}
	}

	m.close()
	if got := g.Git("log", "-1", "--format=%B"); !strings.Contains(got, "Autocoder-Step: mcp-") {
		t.Fatalf("commit message:\n%s", got)
	}
	g.AssertClean()
	g.Fsck()
}

// A session started outside any repository still answers initialize; each
// tool call says how to configure it. With a root from the client, or
// --root, it works wherever it was started.
func TestMCPStartedAnywhere(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	nowhere := t.TempDir()

	m := startMCP(t, nowhere, nil)
	text, isErr := m.call("fs_read", map[string]any{"path": "a.txt"})
	if !isErr || !strings.Contains(text, "no git repository") || !strings.Contains(text, `"--root"`) {
		t.Fatalf("unconfigured: %v %q", isErr, text)
	}

	m = startMCP(t, nowhere, []string{nowhere, g.Dir})
	if text := m.mustCall("fs_read", map[string]any{"path": "a.txt"}); text != "a\n" {
		t.Fatalf("with the client's roots: %q", text)
	}

	for _, argv := range [][]string{{"mcp", "--root", g.Dir}, {"mcp", "-C", g.Dir}, {"-C", g.Dir, "mcp"}} {
		m = startCommand(t, nowhere, nil, "autocoder", argv...)
		if text := m.mustCall("fs_read", map[string]any{"path": "a.txt"}); text != "a\n" {
			t.Fatalf("autocoder %v: %q", argv, text)
		}
	}
}

// The configuration lines of the README, for each client, run as that
// client runs them: the command and arguments as written (the binary on
// PATH, the client's variables and the example folder filled in), started
// in the folder the client starts servers in.
func TestMCPClientConfigurations(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "### Serving the tools to an MCP client")
	if start < 0 {
		t.Fatal("the README has no MCP section")
	}
	text = text[start:]
	text = text[:strings.Index(text[4:], "\n### ")+4]
	elsewhere := t.TempDir()
	type config struct {
		client, dir string
		argv        []string
	}
	var configs []config
	for _, block := range strings.Split(text, "```")[1:] {
		lang, body, _ := strings.Cut(block, "\n")
		switch lang {
		case "json":
			var c map[string]map[string]struct {
				Command string
				Args    []string
			}
			if err := json.Unmarshal([]byte(body), &c); err != nil {
				t.Fatalf("README: %v in\n%s", err, body)
			}
			for key, servers := range c {
				client := map[string]string{"mcpServers": "Claude Desktop or Cursor", "servers": "VS Code"}[key]
				dir := elsewhere
				if strings.HasPrefix(servers["autocoder"].Command, "/") {
					dir = "/" // Claude Desktop starts servers in /
				}
				configs = append(configs, config{client, dir, append([]string{servers["autocoder"].Command}, servers["autocoder"].Args...)})
			}
		case "sh":
			if _, cmdline, ok := strings.Cut(strings.TrimSpace(body), "claude mcp add autocoder -- "); ok {
				configs = append(configs, config{"Claude Code", g.Dir, strings.Fields(cmdline)})
			}
		}
	}
	if len(configs) != 4 {
		t.Fatalf("%d configurations in the README, want 4 (Claude Desktop, Claude Code, Cursor, VS Code)", len(configs))
	}
	for _, c := range configs {
		argv := slices.Clone(c.argv)
		if filepath.Base(argv[0]) == "autocoder" {
			argv[0] = "autocoder" // this test's binary, on PATH
		}
		for i, a := range argv {
			argv[i] = strings.NewReplacer("/path/to/repository", g.Dir, "${workspaceFolder}", g.Dir).Replace(a)
		}
		m := startCommand(t, c.dir, nil, argv[0], argv[1:]...)
		if text, isErr := m.call("fs_read", map[string]any{"path": "a.txt"}); isErr || text != "a\n" {
			t.Errorf("%s (%v in %s): %v %q", c.client, c.argv, c.dir, isErr, text)
		}
		m.close()
	}
}

// Clients of every protocol version the SDK speaks are served, and a
// client's keepalive pings are answered while a program runs (a server that
// served one request at a time lost the session there).
func TestMCPVersionsAndKeepAlive(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", ""} {
		m := startWith(t, g.Dir, nil, nil, v, "autocoder", "mcp")
		if got := m.cs.InitializeResult().ProtocolVersion; v != "" && got != v {
			t.Errorf("asked for %s, got %s", v, got)
		}
		if text := m.mustCall("fs_read", map[string]any{"path": "a.txt"}); text != "a\n" {
			t.Errorf("protocol %q: %q", v, text)
		}
		m.close()
	}
	m := startWith(t, g.Dir, nil, &sdk.ClientOptions{KeepAlive: 50 * time.Millisecond}, "", "autocoder", "mcp", "--allow-programs")
	if text := m.mustCall("shell_exec", map[string]any{"command": "sleep 1; echo done"}); !strings.Contains(text, "done") {
		t.Fatalf("a program under the client's keepalive: %q", text)
	}
	if err := m.cs.Ping(context.Background(), nil); err != nil {
		t.Fatalf("the session did not survive: %v", err)
	}
}

// A ping is answered while a program runs; cancelling the call stops the
// program and everything it started.
func TestMCPPingAndCancelDuringAProgram(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	m := startMCP(t, g.Dir, nil, "--allow-programs")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := m.cs.CallTool(ctx, &sdk.CallToolParams{Name: "shell_exec",
			Arguments: map[string]any{"command": "sleep 30 & echo $! > child.pid; wait"}})
		done <- err
	}()
	pid := waitPID(t, filepath.Join(g.Dir, "child.pid"))
	start := time.Now()
	if err := m.cs.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	// A hang guard, not a speed target: a ping that waited behind the
	// program would take its 30 s; a loaded machine may take seconds.
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("a ping during a program took %s", d)
	}
	cancel()
	<-done
	waitGone(t, pid)
	// The session goes on: the next call works.
	m.mustCall("fs_write", map[string]any{"path": "after.txt", "mode": "overwrite", "content": "x\n"})
	m.close()
	g.AssertClean() // child.pid became the program's own commit
	g.Fsck()
}

// The client closing its end during a program (or a signal) stops the
// program with its children; the files it made are committed, nothing is
// left in the work tree, and the server exits.
func TestMCPClientGoesAwayDuringAProgram(t *testing.T) {
	for _, how := range []string{"close", "signal"} {
		t.Run(how, func(t *testing.T) {
			gittest.Isolate(t)
			g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
			m := startMCP(t, g.Dir, nil, "--allow-programs")
			go m.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "shell_exec",
				Arguments: map[string]any{"command": "echo made > made.txt; sleep 30 & echo $! > child.pid; wait"}})
			pid := waitPID(t, filepath.Join(g.Dir, "child.pid"))
			start := time.Now()
			if how == "signal" {
				m.cmd.Process.Signal(syscall.SIGTERM)
			}
			if err := m.close(); err != nil && how == "close" {
				t.Fatal(err)
			}
			// Well under the program's 30 s: the server did not wait for it.
			if d := time.Since(start); d > 20*time.Second {
				t.Fatalf("the server took %s to exit", d)
			}
			waitGone(t, pid)
			g.AssertClean()
			g.Fsck()
			if got := g.Git("log", "--format=%s", "-1"); !strings.Contains(got, "files changed by") {
				t.Fatalf("the program's files were not committed: %q", got)
			}
		})
	}
}

// Two sessions on one repository, and an editor running git status beside
// them: every call succeeds, one after another.
func TestMCPTwoSessionsAndGitStatus(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	a, b := startMCP(t, g.Dir, nil), startMCP(t, g.Dir, nil)
	stop := make(chan struct{})
	var statusRuns int
	var editor sync.WaitGroup
	editor.Add(1)
	go func() {
		defer editor.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			exec.Command("git", "-C", g.Dir, "status", "--porcelain").Run() // refreshes the index under index.lock
			statusRuns++
			time.Sleep(20 * time.Millisecond)
		}
	}()
	const n = 15
	var wg sync.WaitGroup
	errs := make(chan string, 2*n)
	for i, m := range []*mcpClient{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < n; j++ {
				res, err := m.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "fs_write",
					Arguments: map[string]any{"path": fmt.Sprintf("s%d/f%d.txt", i, j), "mode": "overwrite", "content": "x\n"}})
				if err != nil {
					errs <- err.Error()
				} else if res.IsError {
					errs <- resultText(res)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	editor.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if got := strings.Count(g.Git("log", "--format=%s"), "\n"); got != 2*n+1 {
		t.Errorf("%d commits, want %d", got, 2*n+1)
	}
	if statusRuns == 0 {
		t.Error("git status never ran")
	}
	g.AssertClean()
	g.Fsck()
}

// A result larger than the cap is its first part and a note that says how
// to read the rest; the connection survives.
func TestMCPResultCap(t *testing.T) {
	t.Parallel()
	var big strings.Builder
	for i := 0; big.Len() < 100_000; i++ {
		fmt.Fprintf(&big, "line %d\n", i)
	}
	g := gittest.NewWithCommit(t, map[string]string{"big.txt": big.String()})
	m := startMCP(t, g.Dir, nil, "--max-result", "4096")
	text := m.mustCall("fs_read", map[string]any{"path": "big.txt"})
	if len(text) > 4096 || !strings.HasPrefix(big.String(), text[:strings.Index(text, "\n[autocoder:")]) ||
		!strings.Contains(text, `range`) || !strings.Contains(text, `lines`) {
		t.Fatalf("capped read (%d bytes): ...%q", len(text), text[max(0, len(text)-400):])
	}
	if text := m.mustCall("fs_read", map[string]any{"path": "big.txt", "lines": "2-3"}); text != "line 1\nline 2" {
		t.Fatalf("the next part: %q", text)
	}
}

func waitPID(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid
		}
	}
	t.Fatalf("%s never appeared", path)
	return 0
}

// waitGone fails unless the process pid ends within a few seconds.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	// 20 s: under the programs' sleep 30, so a process that was not killed
	// is still told apart, with room for a loaded machine.
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !processAlive(pid) {
			return
		}
	}
	killProcess(pid)
	t.Fatalf("process %d (started by the program) is still running", pid)
}

// A client that does not declare the roots capability (a script writing
// JSON-RPC lines, a client without roots) is never asked for its roots: the
// specification lets a server send only the requests a client declared,
// and such a client does not answer one, so each call waited for it.
func TestMCPClientWithoutRoots(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	cmd, stdin, stdout := startPiped(t, g.Dir, "autocoder", "mcp")
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	lines := make(chan map[string]any)
	go func() {
		dec := json.NewDecoder(stdout)
		for {
			var m map[string]any
			if dec.Decode(&m) != nil {
				close(lines)
				return
			}
			lines <- m
		}
	}()
	send := func(s string) {
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatal("the server closed its output")
			}
			return m
		case <-time.After(3 * time.Second):
			t.Fatal("no answer within 3 s")
		}
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}`)
	if m := next(); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fs_read","arguments":{"path":"a.txt"}}}`)
	m := next()
	if m["method"] != nil {
		t.Fatalf("the server sent the client a request it did not declare: %v", m)
	}
	res, _ := m["result"].(map[string]any)
	if m["id"] != float64(2) || res == nil || res["isError"] == true {
		t.Fatalf("fs_read: %v", m)
	}
	g.AssertClean()
}

// A command typed beside a session that is working (an undo, a log while
// the client calls tools) waits for the call in flight instead of failing
// with "another autocoder is working": the session holds the lock only
// during a call.
func TestMCPCommandBesideAWorkingSession(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	m := startMCP(t, g.Dir, nil)
	m.mustCall("fs_write", map[string]any{"path": "x.txt", "mode": "overwrite", "content": "x\n"})
	stop, done := make(chan struct{}), make(chan int)
	go func() {
		calls := 0
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- calls
				return
			case <-time.After(20 * time.Millisecond): // a client reading each answer
			}
			m.call("fs_write", map[string]any{"path": fmt.Sprintf("f%d.txt", i%5), "mode": "overwrite", "content": fmt.Sprint(i, "\n")})
			calls++
		}
	}()
	var failed []string
	for i := 0; i < 20; i++ {
		if out, err := exec.Command("autocoder", "-C", g.Dir, "log").CombinedOutput(); err != nil {
			failed = append(failed, string(out))
		}
	}
	close(stop)
	if calls := <-done; calls < 5 {
		t.Fatalf("the session made only %d calls meanwhile", calls)
	}
	if len(failed) > 0 {
		t.Fatalf("%d of 20 autocoder log beside the session failed, first:\n%s", len(failed), failed[0])
	}
	g.AssertClean()
	g.Fsck()
}

// autocoder.toml changed during a session (a path denied, programs turned
// off) holds from the next call on: a session does not keep a policy the
// user has since tightened.
func TestMCPSessionReadsAChangedConfiguration(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "autocoder.toml": "[programs]\nenabled = true\nallow = [\"true\"]\n"})
	if out, err := exec.Command("autocoder", "-C", g.Dir, "trust").CombinedOutput(); err != nil {
		t.Fatalf("autocoder trust: %v\n%s", err, out)
	}
	m := startMCP(t, g.Dir, nil)
	m.mustCall("fs_write", map[string]any{"path": "secrets/one.txt", "mode": "overwrite", "content": "1\n"})
	m.mustCall("shell_exec", map[string]any{"command": "true"})

	g.Write("autocoder.toml", "[paths]\ndeny = [\"secrets/**\"]\n")
	g.Git("commit", "-qam", "deny secrets, programs off")
	before := g.Snapshot()
	if text, isErr := m.call("fs_write", map[string]any{"path": "secrets/two.txt", "mode": "overwrite", "content": "2\n"}); !isErr || !strings.Contains(text, "secrets/**") {
		t.Fatalf("a write the changed autocoder.toml denies: %v %q", isErr, text)
	}
	if text, isErr := m.call("shell_exec", map[string]any{"command": "true"}); !isErr || !strings.Contains(text, "autocoder.toml") {
		t.Fatalf("a program the changed autocoder.toml no longer allows: %v %q", isErr, text)
	}
	g.AssertUnchanged(before)

	// A file that does not parse is said at the call, which changes nothing.
	g.Write("autocoder.toml", "[paths\n")
	if text, isErr := m.call("fs_write", map[string]any{"path": "b.txt", "mode": "overwrite", "content": "b\n"}); !isErr || !strings.Contains(text, "autocoder.toml") {
		t.Fatalf("a call under an autocoder.toml that does not parse: %v %q", isErr, text)
	}
	if _, ok := g.Read("b.txt"); ok {
		t.Fatal("b.txt was written under an autocoder.toml that does not parse")
	}
}

// A configuration written during a session never takes effect in it: an
// fs_write of autocoder.toml (where the user's own deny list permits it)
// that turns programs on leaves the next call's program refused, naming
// autocoder trust; the file is the session's, not the user's.
func TestMCPWrittenConfigurationDoesNotWiden(t *testing.T) {
	home := gittest.Isolate(t)
	must(t, os.MkdirAll(filepath.Join(home, ".config", "autocoder"), 0o755))
	must(t, os.WriteFile(filepath.Join(home, ".config", "autocoder", "config.toml"), []byte("[paths]\ndeny = []\n"), 0o644))
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	m := startMCP(t, g.Dir, nil)
	m.mustCall("fs_write", map[string]any{"path": "autocoder.toml", "mode": "overwrite",
		"content": "[programs]\nenabled = true\nallow = [\"touch\"]\n[verify]\ncommand = \"touch pwned\"\n"})
	text, isErr := m.call("shell_exec", map[string]any{"command": "touch ran.txt"})
	if !isErr || !strings.Contains(text, "autocoder trust") {
		t.Fatalf("a program the session's own autocoder.toml allows: %v %q", isErr, text)
	}
	m.mustCall("fs_write", map[string]any{"path": "b.txt", "mode": "overwrite", "content": "b\n"})
	for _, f := range []string{"ran.txt", "pwned"} {
		if _, ok := g.Read(f); ok {
			t.Errorf("%s was made: the session's own autocoder.toml took effect", f)
		}
	}
}

// Nor does a write of autocoder.toml that drops what it restricted, or
// that writes back a content the user trusted once: the next calls are
// refused the path the file denied when the session began, and the
// program that content allows. The user's own autocoder trust during the
// session still counts from the next call.
func TestMCPWrittenConfigurationDoesNotDropWhatItDenied(t *testing.T) {
	home := gittest.Isolate(t)
	must(t, os.MkdirAll(filepath.Join(home, ".config", "autocoder"), 0o755))
	must(t, os.WriteFile(filepath.Join(home, ".config", "autocoder", "config.toml"), []byte("[paths]\ndeny = []\n"), 0o644))
	trusted := "[programs]\nenabled = true\nallow = [\"touch\"]\n"
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "autocoder.toml": trusted})
	if out, err := exec.Command("autocoder", "-C", g.Dir, "trust").CombinedOutput(); err != nil {
		t.Fatalf("autocoder trust: %v\n%s", err, out)
	}
	g.Write("autocoder.toml", "[paths]\ndeny = [\"secrets/\"]\n[programs]\nenabled = false\n")
	g.Git("commit", "-qam", "deny secrets, programs off")
	m := startMCP(t, g.Dir, nil)
	m.mustCall("fs_write", map[string]any{"path": "autocoder.toml", "mode": "overwrite", "content": ""})
	before := g.Snapshot()
	if text, isErr := m.call("fs_write", map[string]any{"path": "secrets/key.txt", "mode": "overwrite", "content": "k\n"}); !isErr || !strings.Contains(text, "secrets/") {
		t.Errorf("secrets/, denied when the session began, after the session emptied autocoder.toml: %v %q", isErr, text)
	}
	g.AssertUnchanged(before)
	m.mustCall("fs_write", map[string]any{"path": "autocoder.toml", "mode": "overwrite", "content": trusted})
	if text, isErr := m.call("shell_exec", map[string]any{"command": "touch ran.txt"}); !isErr {
		t.Errorf("a program of a content trusted once, written back by the session: %q", text)
	}
	if _, ok := g.Read("ran.txt"); ok {
		t.Fatal("ran.txt was made: the content the session wrote took effect in it")
	}
	if out, err := exec.Command("autocoder", "-C", g.Dir, "trust").CombinedOutput(); err != nil {
		t.Fatalf("autocoder trust: %v\n%s", err, out)
	}
	m.mustCall("shell_exec", map[string]any{"command": "touch trusted.txt"})
	if _, ok := g.Read("trusted.txt"); !ok {
		t.Fatal("the program of the file the user trusted during the session did not run")
	}
}

// autocoder untrust during a session holds from the next call on, as a
// changed autocoder.toml does: the trust record is part of the policy.
// Before, a session opened while the file was trusted kept running its
// programs until the file itself changed.
func TestMCPSessionHonoursUntrust(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "autocoder.toml": "[programs]\nenabled = true\nallow = [\"touch\"]\n"})
	if out, err := exec.Command("autocoder", "-C", g.Dir, "trust").CombinedOutput(); err != nil {
		t.Fatalf("autocoder trust: %v\n%s", err, out)
	}
	m := startMCP(t, g.Dir, nil)
	m.mustCall("shell_exec", map[string]any{"command": "touch one.txt"})
	if out, err := exec.Command("autocoder", "-C", g.Dir, "untrust").CombinedOutput(); err != nil {
		t.Fatalf("autocoder untrust: %v\n%s", err, out)
	}
	if text, isErr := m.call("shell_exec", map[string]any{"command": "touch two.txt"}); !isErr || !strings.Contains(text, "autocoder trust") {
		t.Fatalf("a program of a file no longer trusted: %v %q", isErr, text)
	}
	if _, ok := g.Read("two.txt"); ok {
		t.Fatal("two.txt was made after autocoder untrust")
	}
}
