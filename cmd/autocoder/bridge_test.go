package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/autocoder/autocoder/bridge"
	"github.com/autocoder/autocoder/gitops/gittest"
)

// These tests drive `autocoder bridge` as the browser does: a process
// started with the caller's origin as its argument, framed JSON messages on
// its standard input, framed replies on its standard output. git judges
// the repository.

var chromeOrigin = "chrome-extension://" + bridge.ExtensionID + "/"

// frame is one native-messaging message.
func frame(v any) []byte {
	b, ok := v.([]byte)
	if !ok {
		b, _ = json.Marshal(v)
	}
	var hdr [4]byte
	binary.NativeEndian.PutUint32(hdr[:], uint32(len(b)))
	return append(hdr[:], b...)
}

// bridgeRun starts the host with args, writes input, closes its standard
// input and returns the replies it wrote, its standard error and its exit.
func bridgeRun(t *testing.T, args []string, input []byte) ([]bridge.Reply, string, error) {
	t.Helper()
	cmd := exec.Command("autocoder", append([]string{"bridge"}, args...)...)
	cmd.Dir = t.TempDir() // the browser starts hosts anywhere
	cmd.Stdin = bytes.NewReader(input)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var replies []bridge.Reply
	data := out.Bytes()
	for len(data) > 0 {
		if len(data) < 4 {
			t.Fatalf("a reply cut in its length: %q", data)
		}
		n := binary.NativeEndian.Uint32(data[:4])
		if n > bridge.MaxReply || int(n) > len(data)-4 {
			t.Fatalf("a reply of %d bytes (%d left)", n, len(data)-4)
		}
		var r bridge.Reply
		if jerr := json.Unmarshal(data[4:4+n], &r); jerr != nil {
			t.Fatalf("reply %q: %v", data[4:4+n], jerr)
		}
		replies = append(replies, r)
		data = data[4+n:]
	}
	return replies, errb.String(), err
}

// bridgeAsk sends one request from autocoder's extension and returns the reply.
func bridgeAsk(t *testing.T, req map[string]any) bridge.Reply {
	t.Helper()
	replies, stderr, err := bridgeRun(t, []string{chromeOrigin}, frame(req))
	if err != nil || len(replies) != 1 {
		t.Fatalf("%v: %v, %d replies\n%s", req, err, len(replies), stderr)
	}
	return replies[0]
}

const bridgeAnswer = "Here is the change.\n\n~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nsrc/greet.py\n~~~~~\n~~~~~python\ndef greet(name):\n    return \"hello, \" + name\n~~~~~\n\n" +
	"~~~~~act\npatch_file\n~~~~~\n~~~~~path\nsrc/main.py\n~~~~~\n~~~~~python\nprint(\"hi\")\n~~~~~\n~~~~~python\nfrom greet import greet\nprint(greet(\"world\"))\n~~~~~\n"

func bridgeRepo(t *testing.T) *gittest.Repo {
	g := gittest.NewWithCommit(t, map[string]string{"src/main.py": "print(\"hi\")\n"})
	var out, errb bytes.Buffer
	if code := run([]string{"autocoder", "bridge", "add", g.Dir}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("bridge add: %d %s", code, errb.String())
	}
	return g
}

// preview, apply, a second apply, undo, apply again: what autocoder apply
// does, with a log line per request.
func TestBridgePreviewApplyUndo(t *testing.T) {
	gittest.Isolate(t)
	g := bridgeRepo(t)
	before := g.Snapshot()

	p := bridgeAsk(t, map[string]any{"id": "1", "type": "preview", "site": "chatgpt.com", "answer": bridgeAnswer})
	if !p.OK || p.ID != "1" || p.Outcome != "previewed" || p.Summary == nil || p.Summary.Steps != 2 ||
		strings.Join(p.Summary.Files, ",") != "src/greet.py,src/main.py" || p.Summary.Added != 4 || p.Summary.Removed != 1 {
		t.Fatalf("preview: %+v", p)
	}
	if !strings.Contains(p.Patch, "+++ b/src/greet.py") || p.Repository != filepath.Base(g.Dir) || p.Feedback == "" {
		t.Fatalf("preview: %+v", p)
	}
	var rep struct {
		DryRun   bool `json:"dry_run"`
		ExitCode int  `json:"exit_code"`
		Results  []struct {
			Status string `json:"status"`
			Commit string `json:"commit"`
		} `json:"results"`
	}
	if err := json.Unmarshal(p.Report, &rep); err != nil || !rep.DryRun || len(rep.Results) != 2 || rep.Results[0].Status != "planned" {
		t.Fatalf("the preview's report: %v %s", err, p.Report)
	}
	g.AssertUnchanged(before)

	a := bridgeAsk(t, map[string]any{"id": "2", "type": "apply", "site": "chatgpt.com", "answer": bridgeAnswer})
	if !a.OK || a.Outcome != "applied" || len(a.Commits) != 2 {
		t.Fatalf("apply: %+v", a)
	}
	if err := json.Unmarshal(a.Report, &rep); err != nil || rep.DryRun || rep.ExitCode != 0 || rep.Results[1].Commit != a.Commits[1] {
		t.Fatalf("the apply's report: %v %s", err, a.Report)
	}
	if !strings.Contains(a.Feedback, "patch_file") {
		t.Fatalf("feedback: %q", a.Feedback)
	}
	log := strings.Fields(g.Git("log", "--format=%H", "main..HEAD"))
	if len(log) != 2 || log[0] != a.Commits[1] || log[1] != a.Commits[0] {
		t.Fatalf("git log %v, reply %v", log, a.Commits)
	}
	if !strings.Contains(g.Git("log", "-1", "--format=%B"), "Autocoder-Step: ") {
		t.Fatal("no Autocoder-Step trailer")
	}
	if got := g.MustRead("src/main.py"); got != "from greet import greet\nprint(greet(\"world\"))\n" {
		t.Fatalf("src/main.py: %q", got)
	}
	g.AssertClean()
	g.Fsck()

	// The same answer again changes nothing, and says so.
	head := g.Git("rev-parse", "HEAD")
	again := bridgeAsk(t, map[string]any{"id": "3", "type": "apply", "site": "chatgpt.com", "answer": bridgeAnswer})
	if !again.OK || again.Outcome != "already_applied" || strings.Join(again.Commits, " ") != strings.Join(a.Commits, " ") ||
		!strings.Contains(again.Message, "nothing changed") {
		t.Fatalf("a second apply: %+v", again)
	}
	if g.Git("rev-parse", "HEAD") != head {
		t.Fatal("a second apply moved HEAD")
	}
	if p := bridgeAsk(t, map[string]any{"type": "preview", "answer": bridgeAnswer}); !strings.Contains(p.Message, "applied already") {
		t.Fatalf("a preview of an applied answer: %+v", p)
	}

	st := bridgeAsk(t, map[string]any{"type": "status"})
	if !st.OK || !strings.Contains(string(st.Report), a.Commits[1]) {
		t.Fatalf("status: %+v", st)
	}

	u := bridgeAsk(t, map[string]any{"type": "undo", "steps": 2, "site": "chatgpt.com"})
	if !u.OK || u.Outcome != "undone" || len(u.Commits) != 2 {
		t.Fatalf("undo: %+v", u)
	}
	if got := g.MustRead("src/main.py"); got != "print(\"hi\")\n" {
		t.Fatalf("after undo: %q", got)
	}
	g.AssertClean()
	// Undone, the answer applies again.
	if a2 := bridgeAsk(t, map[string]any{"type": "apply", "answer": bridgeAnswer}); a2.Outcome != "applied" || len(a2.Commits) != 2 {
		t.Fatalf("apply after undo: %+v", a2)
	}
	g.Fsck()

	// One log line per request on the repository, through autocoder's
	// folder under .git.
	data, err := os.ReadFile(filepath.Join(g.Dir, ".git", "autocoder", "bridge.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	sum := sha256.Sum256([]byte(bridgeAnswer))
	want := []string{"previewed", "applied", "already_applied", "previewed", "status", "undone", "applied"}
	if len(lines) != len(want) {
		t.Fatalf("%d log lines, want %d:\n%s", len(lines), len(want), data)
	}
	for i, l := range lines {
		var en struct {
			Time, Site, Type, Outcome string
			Answer                    string   `json:"answer_sha256"`
			Steps                     int      `json:"steps"`
			Commits                   []string `json:"commits"`
		}
		if err := json.Unmarshal([]byte(l), &en); err != nil || en.Outcome != want[i] || en.Time == "" {
			t.Fatalf("log line %d: %v %s", i, err, l)
		}
		if i == 1 && (en.Site != "chatgpt.com" || en.Answer != hex.EncodeToString(sum[:]) || en.Steps != 2 || len(en.Commits) != 2) {
			t.Fatalf("the apply's log line: %s", l)
		}
	}
}

// Programs stay off unless the repository's policy allows them: the
// browser has no flag that allows more.
func TestBridgeProgramsStayOff(t *testing.T) {
	gittest.Isolate(t)
	g := bridgeRepo(t)
	answer := "~~~~~act\nrun_command\n~~~~~\n~~~~~command\ntouch pwned\n~~~~~\n"
	r := bridgeAsk(t, map[string]any{"type": "apply", "answer": answer})
	if r.Outcome != "refused" || !strings.Contains(r.Feedback, "programs are off") {
		t.Fatalf("a program: %+v", r)
	}
	if _, ok := g.Read("pwned"); ok {
		t.Fatal("the program ran")
	}
	// The path policy holds too: nothing is written into .git or outside
	// the repository.
	before := g.Snapshot()
	for _, path := range []string{".git/hooks/pre-commit", "../outside.txt", "/tmp/autocoder-bridge-outside.txt"} {
		answer := "~~~~~act\nwrite_file\n~~~~~\n~~~~~path\n" + path + "\n~~~~~\n~~~~~sh\ntouch pwned\n~~~~~\n"
		r := bridgeAsk(t, map[string]any{"type": "apply", "answer": answer})
		if r.Outcome != "refused" || len(r.Commits) != 0 {
			t.Errorf("a write to %s: %+v", path, r)
		}
	}
	g.AssertUnchanged(before)
	for _, f := range []string{filepath.Join(g.Dir, ".git", "hooks", "pre-commit"), filepath.Join(filepath.Dir(g.Dir), "outside.txt"), "/tmp/autocoder-bridge-outside.txt"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s was written", f)
		}
	}
}

// Everything a page or a stranger may send is refused, and the repository
// does not change.
func TestBridgeRefusals(t *testing.T) {
	gittest.Isolate(t)
	g := bridgeRepo(t)
	apply := map[string]any{"type": "apply", "answer": bridgeAnswer}
	before := g.Snapshot()
	for _, c := range []struct {
		name string
		req  map[string]any
		want string
	}{
		{"a path in the request", map[string]any{"type": "apply", "answer": bridgeAnswer, "path": g.Dir}, "unknown field"},
		{"a root in the request", map[string]any{"type": "apply", "answer": bridgeAnswer, "root": "/"}, "unknown field"},
		{"a repository given as a path", map[string]any{"type": "apply", "answer": bridgeAnswer, "repository": g.Dir}, "not a registered repository"},
		{"an unregistered repository", map[string]any{"type": "apply", "answer": bridgeAnswer, "repository": "other"}, "not a registered repository"},
		{"an unknown type", map[string]any{"type": "shell", "answer": "ls"}, "unknown request type"},
	} {
		r := bridgeAsk(t, c.req)
		if r.OK || !strings.Contains(r.Error, c.want) || r.Hint == "" {
			t.Errorf("%s: %+v", c.name, r)
		}
	}
	for _, args := range [][]string{{"chrome-extension://abcdefghijklmnopabcdefghijklmnop/"}, {"https://chatgpt.com/"}, {"/x/manifest.json", "evil@example.com"}} {
		replies, _, err := bridgeRun(t, args, frame(apply))
		if err == nil || len(replies) != 1 || replies[0].OK || replies[0].Outcome != "refused" || !strings.Contains(replies[0].Error, "only to autocoder's browser extension") {
			t.Errorf("origin %v: %v %+v", args, err, replies)
		}
	}
	// A frame over the limit is refused unread; one cut short ends the host.
	var big [4]byte
	binary.NativeEndian.PutUint32(big[:], bridge.MaxRequest+1)
	replies, _, err := bridgeRun(t, []string{chromeOrigin}, append(big[:], "{}"...))
	if err == nil || len(replies) != 1 || replies[0].OK || !strings.Contains(replies[0].Error, "more than") {
		t.Errorf("a frame over the limit: %v %+v", err, replies)
	}
	whole := frame(apply)
	for _, cutAt := range []int{2, 4, len(whole) - 1} {
		replies, stderr, err := bridgeRun(t, []string{chromeOrigin}, whole[:cutAt])
		var ee *exec.ExitError
		if !errors.As(err, &ee) || len(replies) != 0 || !strings.Contains(stderr, "browser's message") {
			t.Errorf("a frame cut at %d: %v %+v %s", cutAt, err, replies, stderr)
		}
	}
	g.AssertUnchanged(before)
	if strings.Contains(g.Git("branch", "--list", "autocoder/*"), "autocoder/") {
		t.Fatal("a refused request made a work branch")
	}
	// The control: the same request from the extension applies.
	if r := bridgeAsk(t, apply); r.Outcome != "applied" {
		t.Fatalf("the control: %+v", r)
	}
}

// With several repositories registered, a request names one; the names are
// all the extension learns.
func TestBridgeSeveralRepositories(t *testing.T) {
	gittest.Isolate(t)
	g1 := bridgeRepo(t)
	g2 := gittest.NewWithCommit(t, map[string]string{"src/main.py": "print(\"hi\")\n"})
	var out, errb bytes.Buffer
	if code := run([]string{"autocoder", "bridge", "add", g2.Dir, "--name", "second"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("bridge add: %s", errb.String())
	}
	rs := bridgeAsk(t, map[string]any{"type": "repositories"})
	if !rs.OK || len(rs.Repositories) != 2 || rs.Repositories[1].Name != "second" || strings.Contains(rs.Message+string(rs.Report), g2.Dir) {
		t.Fatalf("repositories: %+v", rs)
	}
	if r := bridgeAsk(t, map[string]any{"type": "apply", "answer": bridgeAnswer}); r.OK || !strings.Contains(r.Hint, "second") {
		t.Fatalf("no name with two registered: %+v", r)
	}
	if r := bridgeAsk(t, map[string]any{"type": "apply", "repository": "second", "answer": bridgeAnswer}); r.Outcome != "applied" || r.Repository != "second" {
		t.Fatalf("apply to second: %+v", r)
	}
	if _, ok := g1.Read("src/greet.py"); ok {
		t.Fatal("the other repository changed")
	}
	g2.Fsck()
	if code := run([]string{"autocoder", "bridge", "remove", "second"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	if r := bridgeAsk(t, map[string]any{"type": "status", "repository": "second"}); r.OK {
		t.Fatalf("a removed repository: %+v", r)
	}
}

// install writes the manifest where a browser started with --user-data-dir
// reads it, naming this very program; uninstall removes it.
func TestBridgeInstall(t *testing.T) {
	gittest.Isolate(t)
	prof := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"autocoder", "bridge", "install", "--user-data-dir", prof}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	file := filepath.Join(prof, "NativeMessagingHosts", bridge.HostName+".json")
	var m struct {
		Name, Path, Type string
		Origins          []string `json:"allowed_origins"`
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	if err := json.Unmarshal(data, &m); err != nil || m.Name != bridge.HostName || m.Path != exe || m.Type != "stdio" ||
		len(m.Origins) != 1 || m.Origins[0] != chromeOrigin {
		t.Fatalf("manifest %s: %v", data, err)
	}
	if code := run([]string{"autocoder", "bridge", "install", "--browser", "firefox"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	home, _ := os.UserHomeDir()
	ff := filepath.Join(home, ".mozilla", "native-messaging-hosts", bridge.HostName+".json")
	if data, err := os.ReadFile(ff); err != nil || !strings.Contains(string(data), `"allowed_extensions"`) || !strings.Contains(string(data), bridge.FirefoxID) {
		t.Fatalf("firefox manifest: %v %s", err, data)
	}
	for _, argv := range [][]string{{"--user-data-dir", prof}, {"--browser", "firefox"}} {
		if code := run(append([]string{"autocoder", "bridge", "uninstall"}, argv...), strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatal(errb.String())
		}
	}
	for _, f := range []string{file, ff} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there: %v", f, err)
		}
	}
	if code := run([]string{"autocoder", "bridge", "install", "--browser", "netscape"}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Fatalf("an unknown browser: %d", code)
	}
	// Typed by a person, with no origin: the help, not a host waiting on
	// the terminal.
	out.Reset()
	if code := run([]string{"autocoder", "bridge"}, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), "bridge install") {
		t.Fatalf("autocoder bridge: %d\n%s", code, out.String())
	}
}

// The browser runs the program the host manifest names with the caller's
// origin and no command (a manifest's path takes no arguments): that start
// is the host, for Chromium's browsers and for Firefox, and still checks
// the caller.
func TestBridgeStartedAsTheBrowserStartsIt(t *testing.T) {
	gittest.Isolate(t)
	g := bridgeRepo(t)
	for _, args := range [][]string{
		{chromeOrigin},
		{chromeOrigin, "--parent-window=0"},
		{filepath.Join(t.TempDir(), bridge.HostName+".json"), bridge.FirefoxID},
	} {
		cmd := exec.Command("autocoder", args...)
		cmd.Dir = t.TempDir()
		cmd.Stdin = bytes.NewReader(frame(map[string]any{"id": "1", "type": "repositories"}))
		out, err := cmd.Output()
		if err != nil || !strings.Contains(string(out), `"name":"`+filepath.Base(g.Dir)+`"`) {
			t.Fatalf("autocoder %v: %v\n%q", args, err, out)
		}
	}
	cmd := exec.Command("autocoder", "chrome-extension://abcdefghijklmnopabcdefghijklmnop/")
	cmd.Stdin = bytes.NewReader(frame(map[string]any{"type": "repositories"}))
	out, err := cmd.Output()
	if err == nil || !strings.Contains(string(out), "talks only to autocoder's browser extension") || strings.Contains(string(out), filepath.Base(g.Dir)) {
		t.Fatalf("another extension: %v %q", err, out)
	}
}

// An answer whose file names swell in JSON ('&' is written \u0026, six
// bytes) lists more than 1 MiB of names in the preview's summary: the
// reply still fits in what the browser accepts (a larger one ends the
// connection, and the panel learns nothing of what happened).
func TestBridgeReplyWithManyFilesFits(t *testing.T) {
	gittest.Isolate(t)
	g := bridgeRepo(t)
	before := g.Snapshot()
	var answer strings.Builder
	const files = 800
	for i := range files {
		fmt.Fprintf(&answer, "~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nd/%s%d\n~~~~~\n~~~~~text\nx\n~~~~~\n\n", strings.Repeat("&", 240), i)
	}
	p := bridgeAsk(t, map[string]any{"id": "1", "type": "preview", "site": "chatgpt.com", "answer": answer.String()})
	if !p.OK || p.Outcome != "previewed" || p.Summary == nil || p.Summary.Steps != files || p.Truncated == "" {
		t.Fatalf("preview: ok %v outcome %s error %s truncated %q", p.OK, p.Outcome, p.Error, p.Truncated)
	}
	g.AssertUnchanged(before)
}

// The bridge log knows an applied answer behind a line longer than 1 MiB
// (the apply of an answer of some 25,000 steps logs that many commits):
// reading the log does not stop there, so the same answer applied twice
// still changes nothing the second time.
func TestBridgeLogPastALongLine(t *testing.T) {
	gittest.Isolate(t)
	g := bridgeRepo(t)
	dir := filepath.Join(g.Dir, ".git", "autocoder")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	commits := make([]string, 30000)
	for i := range commits {
		commits[i] = fmt.Sprintf("%040x", i)
	}
	long, _ := json.Marshal(map[string]any{"time": "2026-01-01T00:00:00Z", "site": "chatgpt.com", "type": "apply",
		"answer_sha256": strings.Repeat("0", 64), "steps": len(commits), "commits": commits, "outcome": "applied"})
	if err := os.WriteFile(filepath.Join(dir, "bridge.jsonl"), append(long, '\n'), 0o666); err != nil {
		t.Fatal(err)
	}
	a := bridgeAsk(t, map[string]any{"type": "apply", "site": "chatgpt.com", "answer": bridgeAnswer})
	if a.Outcome != "applied" || len(a.Commits) != 2 {
		t.Fatalf("apply: %+v", a)
	}
	head := g.Git("rev-parse", "HEAD")
	again := bridgeAsk(t, map[string]any{"type": "apply", "site": "chatgpt.com", "answer": bridgeAnswer})
	if again.Outcome != "already_applied" || g.Git("rev-parse", "HEAD") != head {
		t.Fatalf("a second apply: %+v", again)
	}
}

// A repository file that is not UTF-8 (Latin-1 here) shows in a dry run's
// diff: every reply is still valid UTF-8, as the browser requires of a
// message (it ends the connection on one that is not).
func TestBridgeRepliesAreUTF8(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"latin.txt": "caf\xe9\n"})
	var out, errb bytes.Buffer
	if code := run([]string{"autocoder", "bridge", "add", g.Dir}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("bridge add: %d %s", code, errb.String())
	}
	answer := "~~~~~act\nwrite_file\n~~~~~\n~~~~~path\nlatin.txt\n~~~~~\n~~~~~text\ncafe\n~~~~~\n"
	for _, typ := range []string{"preview", "apply"} {
		cmd := exec.Command("autocoder", "bridge", chromeOrigin)
		cmd.Stdin = bytes.NewReader(frame(map[string]any{"type": typ, "site": "chatgpt.com", "answer": answer}))
		raw, err := cmd.Output()
		if err != nil || len(raw) < 4 {
			t.Fatalf("%s: %v %q", typ, err, raw)
		}
		if !utf8.Valid(raw[4:]) || !strings.Contains(string(raw), "latin.txt") {
			t.Fatalf("%s: the reply is not UTF-8: %q", typ, raw[4:])
		}
	}
}
