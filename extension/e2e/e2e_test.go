// Package e2e tests autocoder's browser extension in a real browser:
// Debian's chromium, headless, driven through the DevTools protocol
// (chromedp), with the extension loaded from ../ and autocoder bridge
// installed into the test's own profile by autocoder bridge install. The
// chat sites are fixture pages (testdata) served over HTTPS on 127.0.0.1,
// which the browser reaches under the sites' own names (a host-resolver
// rule), so that each site's adapter runs as on the real site.
//
// The browser's clicks on the panel are DevTools input events: trusted, as
// a person's. git judges the repository.
//
// Set AUTOCODER_PANEL_SCREENSHOT=FILE.png to save a picture of the panel
// after an apply (the README's).
package e2e

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

var sites = []string{"chatgpt.com", "claude.ai", "chat.deepseek.com", "chat.qwen.ai", "gemini.google.com"}

// chromium is the browser's binary: Debian's real one (not the wrapper
// script), or the one on PATH.
func chromium() string {
	if p := os.Getenv("AUTOCODER_CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/lib/chromium/chromium"); err == nil {
		return "/usr/lib/chromium/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browserTest is one browser with the extension, one repository
// registered with the bridge, and the fixture sites.
type browserTest struct {
	t       *testing.T
	repo    *gittest.Repo
	exe     string // the autocoder binary
	browser context.Context
}

func setup(t *testing.T) *browserTest {
	t.Helper()
	if testing.Short() {
		t.Skip("the browser tests start chromium: not under -short")
	}
	bin := chromium()
	if bin == "" {
		t.Skip("chromium is not installed (apt-get install -y --no-install-recommends chromium; .ci/run installs it): the browser tests need it")
	}
	gittest.Isolate(t) // HOME, and the registry under it, are the test's; the browser and the host it starts inherit them
	tmp := t.TempDir()

	exe := buildAutocoder(t)
	repo := gittest.NewWithCommit(t, map[string]string{"src/main.py": "print(\"hi\")\n"})
	profile := filepath.Join(tmp, "profile")
	for _, args := range [][]string{
		{"bridge", "install", "--browser", "chromium", "--user-data-dir", profile},
		{"bridge", "add", "--name", "project", repo.Dir},
	} {
		if out, err := exec.Command(exe, args...).CombinedOutput(); err != nil {
			t.Fatalf("autocoder %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}

	srv := httptest.NewTLSServer(http.HandlerFunc(serveFixture))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var rules []string
	for _, s := range sites {
		rules = append(rules, "MAP "+s+" 127.0.0.1:"+port)
	}
	ext, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1000, 1000),
		chromedp.Flag("headless", "new"),
		chromedp.NoSandbox, // as root, chromium runs only without it
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("load-extension", ext),
		chromedp.Flag("disable-extensions-except", ext),
		chromedp.Flag("host-resolver-rules", strings.Join(rules, ",")),
		chromedp.Flag("ignore-certificate-errors", true),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	browser, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return &browserTest{t: t, repo: repo, exe: exe, browser: browser}
}

var build struct {
	sync.Once
	exe string
	err error
	out []byte
}

// buildAutocoder builds the binary once for the package's tests, into a
// folder that lives as long as the test binary.
func buildAutocoder(t *testing.T) string {
	t.Helper()
	build.Do(func() {
		dir, err := os.MkdirTemp("", "autocoder-e2e-")
		if err != nil {
			build.err = err
			return
		}
		build.exe = filepath.Join(dir, "autocoder")
		build.out, build.err = exec.Command("go", "build", "-o", build.exe, "github.com/autocoder/autocoder/cmd/autocoder").CombinedOutput()
	})
	if build.err != nil {
		t.Fatalf("go build: %v\n%s", build.err, build.out)
	}
	return build.exe
}

func TestMain(m *testing.M) {
	code := m.Run()
	if build.exe != "" {
		os.RemoveAll(filepath.Dir(build.exe))
	}
	os.Exit(code)
}

func serveFixture(w http.ResponseWriter, r *http.Request) {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	name := host + ".html"
	if r.URL.Path == "/fixture.js" {
		name = "fixture.js"
	}
	if strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") {
		http.NotFound(w, r)
		return
	}
	http.ServeFile(w, r, filepath.Join("testdata", name))
}

// page opens a tab on site's fixture.
func (b *browserTest) page(site string) context.Context {
	b.t.Helper()
	tab, cancel := chromedp.NewContext(b.browser)
	b.t.Cleanup(cancel)
	b.run(tab, chromedp.Navigate("https://"+site+"/"), chromedp.WaitReady(chromedp.CSS("#thread")))
	return tab
}

func (b *browserTest) run(ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatal(err)
	}
}

// call sends one DevTools command.
func call[P, R any](b *browserTest, ctx context.Context, cmd cdp.Command[P, R], params P) R {
	b.t.Helper()
	r, err := chromedp.Call(ctx, cmd, params)
	if err != nil {
		b.t.Fatalf("%s: %v", cmd.Method, err)
	}
	return r
}

// eval runs js in the page's own world (as a page script) and returns its
// value.
func eval[T any](b *browserTest, ctx context.Context, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("%v\n%s", err, js)
	}
	return v
}

// stream has the page stream an answer in, with a stall longer than the
// extension's quiet period while the site's "stop" marker is still up.
func (b *browserTest) stream(ctx context.Context, answer string) {
	b.t.Helper()
	js, _ := json.Marshal(answer)
	eval[bool](b, ctx, "fixture.answer("+string(js)+", {chunks: 10, delay: 30, pauseAt: 4, pauseMs: 1500}).then(() => true)")
}

// waitFor polls cond until it holds; it gives up shortly before the
// test's deadline, with what it saw last.
func (b *browserTest) waitFor(what string, cond func() (bool, string)) {
	b.t.Helper()
	deadline, ok := b.t.Deadline()
	for {
		done, seen := cond()
		if done {
			return
		}
		if ok && time.Until(deadline) < 10*time.Second {
			b.t.Fatalf("waiting for %s; last seen: %s", what, seen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ---- the panel, seen through DevTools (its shadow root is closed to the page) ----

type panel struct {
	text    string
	buttons map[string]cdp.BackendNodeID
}

func attr(n *cdp.Node, name string) (string, bool) {
	for i := 0; i+1 < len(n.Attributes); i += 2 {
		if n.Attributes[i] == name {
			return n.Attributes[i+1], true
		}
	}
	return "", false
}

// panels are the page's autocoder panels, in document order.
func (b *browserTest) panels(ctx context.Context) []panel {
	b.t.Helper()
	depth, pierce := int64(-1), true
	root := call(b, ctx, dom.GetDocument, dom.GetDocumentParams{Depth: &depth, Pierce: &pierce}).Root
	var out []panel
	var walk func(n *cdp.Node)
	walk = func(n *cdp.Node) {
		if _, ok := attr(n, "data-autocoder-panel"); ok && n.NodeType == 1 {
			p := panel{buttons: map[string]cdp.BackendNodeID{}}
			var text strings.Builder
			var in func(n *cdp.Node)
			in = func(n *cdp.Node) {
				if n.NodeName == "STYLE" {
					return
				}
				if n.NodeType == 3 {
					text.WriteString(n.NodeValue)
				}
				for _, c := range append(append([]*cdp.Node{}, n.ShadowRoots...), n.Children...) {
					if c.NodeName == "BUTTON" {
						p.buttons[textOf(c)] = c.BackendNodeID
					}
					in(c)
				}
				if n.NodeName == "DIV" || n.NodeName == "LI" {
					text.WriteString("\n")
				}
			}
			in(n)
			p.text = text.String()
			out = append(out, p)
			return
		}
		for _, c := range append(append([]*cdp.Node{}, n.ShadowRoots...), n.Children...) {
			walk(c)
		}
		if n.ContentDocument != nil {
			walk(n.ContentDocument)
		}
	}
	walk(root)
	return out
}

func textOf(n *cdp.Node) string {
	if n.NodeType == 3 {
		return n.NodeValue
	}
	var s string
	for _, c := range n.Children {
		s += textOf(c)
	}
	return s
}

// click clicks the panel's button as a person does: the tab in front,
// the button scrolled into sight and taking clicks (Apply does a moment
// after it comes into sight), then a DevTools mouse event, which the page
// sees as trusted.
func (b *browserTest) click(ctx context.Context, p panel, label string) {
	b.t.Helper()
	id, ok := p.buttons[label]
	if !ok {
		b.t.Fatalf("the panel has no %s button: %q", label, p.text)
	}
	call(b, ctx, page.BringToFront, cdp.Empty{})
	call(b, ctx, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: id})
	b.waitFor("the "+label+" button to take clicks", func() (bool, string) {
		return !b.disabled(ctx, id), p.text
	})
	b.clickNow(ctx, p, label)
}

// disabled says whether the button is disabled.
func (b *browserTest) disabled(ctx context.Context, id cdp.BackendNodeID) bool {
	b.t.Helper()
	n := call(b, ctx, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: id})
	_, off := attr(n.Node, "disabled")
	return off
}

// clickNow clicks the button where it is now, disabled or not.
func (b *browserTest) clickNow(ctx context.Context, p panel, label string) {
	b.t.Helper()
	id := p.buttons[label]
	quads := call(b, ctx, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: id}).Quads
	if len(quads) == 0 {
		b.t.Fatalf("the %s button has no box", label)
	}
	q := quads[0]
	b.run(ctx, chromedp.MouseClickXY((q[0]+q[2]+q[4]+q[6])/4, (q[1]+q[3]+q[5]+q[7])/4))
}

// scriptClick is a page script that got hold of the button and clicks it
// (element.click() and a dispatched MouseEvent): the events are not
// trusted.
func (b *browserTest) scriptClick(ctx context.Context, p panel, label string) {
	b.t.Helper()
	id := p.buttons[label]
	obj := call(b, ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id}).Object
	r := call(b, ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{ObjectID: obj.ObjectID,
		FunctionDeclaration: `function() { this.click(); this.dispatchEvent(new MouseEvent("click", {bubbles: true, composed: true})); }`})
	if r.ExceptionDetails != nil {
		b.t.Fatalf("the page's click: %s", r.ExceptionDetails.Text)
	}
}

// ---- the repository's side ----

type logLine struct {
	Site    string   `json:"site"`
	Type    string   `json:"type"`
	Answer  string   `json:"answer_sha256"`
	Outcome string   `json:"outcome"`
	Commits []string `json:"commits"`
}

// bridgeLog is the bridge's log of requests on the repository.
func (b *browserTest) bridgeLog() []logLine {
	b.t.Helper()
	f, err := os.Open(filepath.Join(b.repo.Dir, ".git", "autocoder", "bridge.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		b.t.Fatal(err)
	}
	defer f.Close()
	var out []logLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l logLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			b.t.Fatalf("bridge log: %v: %s", err, sc.Text())
		}
		out = append(out, l)
	}
	return out
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func (b *browserTest) count(typ, answer string) int {
	n := 0
	for _, l := range b.bridgeLog() {
		if l.Type == typ && (answer == "" || l.Answer == hash(answer)) {
			n++
		}
	}
	return n
}

// steps are the work branch's commits, newest first.
func (b *browserTest) steps() []string {
	return strings.Fields(b.repo.Git("log", "--format=%H", "main..HEAD"))
}

// ---- the answers ----

// greetAnswer is an Axon plan as a chat page shows it: prose, then code
// blocks; written here as the extension rebuilds it, so that its hash is
// the one the bridge logs only if every fence came back exactly.
const greetAnswer = "Here is the change.\n" +
	"```act\nwrite_file\n```\n```path\nsrc/greet.py\n```\n```python\ndef greet(name):\n    return \"hello, \" + name\n```\n" +
	"```act\npatch_file\n```\n```path\nsrc/main.py\n```\n```python\nprint(\"hi\")\n```\n```python\nfrom greet import greet\nprint(greet(\"world\"))\n```\n"

func siteAnswer(site string) string {
	return "One file for " + site + ".\n```act\nwrite_file\n```\n```path\nsites/" + site + ".txt\n```\n```text\n    indented, for " + site + "\n\ttab\n```\n"
}

const proseAnswer = "No change is needed: the code is right as it is.\n"

// panelWith waits for the page's only panel to say want, and returns it.
func (b *browserTest) panelWith(ctx context.Context, want string) panel {
	b.t.Helper()
	var p panel
	b.waitFor("a panel saying "+want, func() (bool, string) {
		ps := b.panels(ctx)
		if len(ps) == 0 {
			return false, "no panel"
		}
		p = ps[len(ps)-1]
		if !strings.Contains(p.text, want) && strings.Contains(p.text, "hint: ") {
			b.t.Fatalf("waiting for a panel saying %s, the panel says:\n%s", want, p.text)
		}
		return strings.Contains(p.text, want), fmt.Sprintf("%d panel(s), the last: %q", len(ps), p.text)
	})
	return p
}

// One browser for every scenario: starting chromium is most of the time.
func TestExtensionInABrowser(t *testing.T) {
	b := setup(t)
	g := b.repo
	before := g.Snapshot()

	// ChatGPT: an answer streams in, stalling longer than the quiet period
	// while the stop button is up: nothing is read until it is complete.
	tab := b.page("chatgpt.com")
	b.stream(tab, greetAnswer)
	if n := b.count("preview", ""); n != 0 {
		t.Fatalf("%d preview(s) before the answer was complete", n)
	}
	p := b.panelWith(tab, "2 step(s), 2 file(s), +4 -1")
	for _, want := range []string{"src/greet.py", "src/main.py", "write src/greet.py", "replace src/main.py"} {
		if !strings.Contains(p.text, want) {
			t.Fatalf("the panel does not list %q:\n%s", want, p.text)
		}
	}
	// Read once, and exactly: the bridge logged the hash of the answer as
	// written, every fence rebuilt (info string, code, indentation; no
	// "Copy code").
	if n, all := b.count("preview", greetAnswer), b.count("preview", ""); n != 1 || all != 1 {
		t.Fatalf("previews of the answer: %d (of %d); log: %+v", n, all, b.bridgeLog())
	}
	g.AssertUnchanged(before)

	// An answer without a block: read, and no panel.
	b.stream(tab, proseAnswer)
	b.waitFor("the prose answer's preview", func() (bool, string) {
		return b.count("preview", proseAnswer) == 1, fmt.Sprint(b.bridgeLog())
	})
	if ps := b.panels(tab); len(ps) != 1 {
		t.Fatalf("%d panels; the answer without a block got one", len(ps))
	}
	if n := b.count("preview", greetAnswer); n != 1 {
		t.Fatalf("the first answer was read %d times", n)
	}

	// Bait and switch: the page keeps the panel out of sight (off screen),
	// and brings it under the pointer just as the user clicks there. Apply
	// takes no click until it has been in sight a moment.
	eval[bool](b, tab, `(() => { document.querySelector("[data-autocoder-panel]").style.cssText = "position: fixed; left: -10000px; top: 0"; return true; })()`)
	b.waitFor("Apply to stop taking clicks once out of sight", func() (bool, string) { return b.disabled(tab, p.buttons["Apply"]), "" })
	eval[bool](b, tab, `(() => { document.querySelector("[data-autocoder-panel]").style.cssText = ""; return true; })()`)
	b.clickNow(tab, p, "Apply")

	// A hostile page: it clicks Apply from a script (having got hold of
	// the button), clicks the panel, posts messages to the content script,
	// and tries the extension's messaging. Nothing applies.
	b.scriptClick(tab, p, "Apply")
	b.scriptClick(tab, p, "Undo")
	answerJS, _ := json.Marshal(greetAnswer)
	attempts := eval[map[string]string](b, tab, `(async () => {
		const a = `+string(answerJS)+`, r = {};
		const host = document.querySelector("[data-autocoder-panel]");
		host.click();
		host.dispatchEvent(new MouseEvent("click", {bubbles: true, composed: true}));
		r.shadow = String(host.shadowRoot);
		window.postMessage({type: "apply", answer: a}, "*");
		document.dispatchEvent(new CustomEvent("autocoder", {detail: {type: "apply", answer: a}}));
		r.runtime = typeof chrome !== "undefined" && chrome.runtime ? typeof chrome.runtime.sendMessage : "none";
		try { await chrome.runtime.sendMessage("`+extensionID+`", {type: "apply", answer: a}); r.send = "sent"; }
		catch (e) { r.send = "refused: " + e.message; }
		try { chrome.runtime.connectNative("dev.autocoder.bridge"); r.native = "connected"; }
		catch (e) { r.native = "refused: " + e.message; }
		return r;
	})()`)
	if attempts["shadow"] != "null" || attempts["send"] == "sent" || attempts["native"] == "connected" {
		t.Fatalf("the page reached into the extension: %v", attempts)
	}
	// A trusted click on Dry run is the barrier: it goes through the same
	// messaging after anything the page set off.
	b.click(tab, p, "Dry run")
	p = b.panelWith(tab, "+++ b/src/greet.py")
	if n := b.count("apply", ""); n != 0 {
		t.Fatalf("a page script applied: %+v", b.bridgeLog())
	}
	g.AssertUnchanged(before)

	// Apply, clicked: one commit per step, the feedback in the input box,
	// nothing sent.
	b.click(tab, p, "Apply")
	p = b.panelWith(tab, "applied: 2 commit(s)")
	steps := b.steps()
	if len(steps) != 2 || !strings.Contains(p.text, "commit "+steps[0][:12]) {
		t.Fatalf("after Apply: steps %v, panel %q", steps, p.text)
	}
	if got := g.MustRead("src/main.py"); got != "from greet import greet\nprint(greet(\"world\"))\n" {
		t.Fatalf("src/main.py: %q", got)
	}
	g.AssertClean()
	g.Fsck()
	b.waitFor("the feedback in the input box", func() (bool, string) {
		in := eval[string](b, tab, "fixture.inputText()")
		return strings.Contains(in, "write_file") && strings.Contains(in, "patch_file"), in
	})
	if n := eval[int](b, tab, "window.sent"); n != 0 {
		t.Fatalf("the feedback was sent %d time(s) with auto-send off", n)
	}
	if path := os.Getenv("AUTOCODER_PANEL_SCREENSHOT"); path != "" {
		r := eval[page.Viewport](b, tab, `(() => { const r = document.querySelector("#thread article").getBoundingClientRect();
			return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height, scale: 1}; })()`)
		beyond := true
		png := call(b, tab, page.CaptureScreenshot, page.CaptureScreenshotParams{Clip: &r, CaptureBeyondViewport: &beyond}).Data
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Apply again: nothing changes, and the panel says so.
	head := g.Git("rev-parse", "HEAD")
	b.click(tab, p, "Apply")
	p = b.panelWith(tab, "nothing changed")
	if g.Git("rev-parse", "HEAD") != head || len(b.steps()) != 2 {
		t.Fatal("a second Apply changed the work branch")
	}
	g.AssertClean()

	// Undo takes both steps back.
	b.click(tab, p, "Undo")
	p = b.panelWith(tab, "undid 2 step(s)")
	if s := b.steps(); len(s) != 0 {
		t.Fatalf("after Undo: %v", s)
	}
	if got := g.MustRead("src/main.py"); got != "print(\"hi\")\n" {
		t.Fatalf("after Undo, src/main.py: %q", got)
	}
	g.AssertClean()
	g.Fsck()

	// Applied again after the Undo: the answer's steps are back.
	b.click(tab, p, "Apply")
	p = b.panelWith(tab, "applied: 2 commit(s)")
	chatgpt, chatgptPanel := tab, p

	// The other sites: each adapter reads its site's answer exactly
	// (indentation and tabs kept; DeepSeek's and Gemini's language from
	// their code block's header), and Apply fills its input box.
	for _, site := range sites[1:] {
		tab := b.page(site)
		answer := siteAnswer(site)
		b.stream(tab, answer)
		p := b.panelWith(tab, "1 step(s), 1 file(s)")
		if n := b.count("preview", answer); n != 1 {
			t.Fatalf("%s: the answer was not read exactly once, as written: %d; log %+v", site, n, b.bridgeLog())
		}
		if site == "claude.ai" {
			// The page rewrites the answer between the preview and the
			// click: Apply applies what the panel showed, not the page's
			// new text (which gets a panel of its own once read).
			eval[bool](b, tab, `(() => { for (const c of document.querySelectorAll("code")) c.textContent = c.textContent.replace("sites/claude.ai.txt", "pwned.txt"); return true; })()`)
			b.click(tab, p, "Apply")
			b.waitFor("the apply of the previewed answer", func() (bool, string) { return b.count("apply", answer) == 1, fmt.Sprint(b.bridgeLog()) })
			if _, ok := g.Read("pwned.txt"); ok || b.count("apply", "") != 4 {
				t.Fatalf("the page's rewritten answer was applied: %+v", b.bridgeLog())
			}
		} else {
			b.click(tab, p, "Apply")
			b.panelWith(tab, "applied: 1 commit(s)")
		}
		if got := g.MustRead("sites/" + site + ".txt"); got != "    indented, for "+site+"\n\ttab\n" {
			t.Fatalf("%s: %q", site, got)
		}
		b.waitFor(site+": the feedback in the input box", func() (bool, string) {
			in := eval[string](b, tab, "fixture.inputText()")
			return strings.Contains(in, "write_file"), in
		})
		if n := eval[int](b, tab, "window.sent"); n != 0 {
			t.Fatalf("%s: the feedback was sent", site)
		}
		if n := eval[int](b, tab, "window.inputEvents"); n == 0 {
			t.Fatalf("%s: the input box got no input event: the site's framework would not see the text", site)
		}
	}
	if n := len(b.steps()); n != 6 {
		t.Fatalf("%d steps after the four sites' answers and ChatGPT's", n)
	}
	// ChatGPT's Undo, now that later steps are on top of its own: refused,
	// nothing taken back.
	head = g.Git("rev-parse", "HEAD")
	b.click(chatgpt, chatgptPanel, "Undo")
	b.waitFor("the refused Undo", func() (bool, string) {
		ps := b.panels(chatgpt)
		return len(ps) > 0 && strings.Contains(ps[0].text, "no longer the newest"), fmt.Sprint(ps)
	})
	if g.Git("rev-parse", "HEAD") != head || len(b.steps()) != 6 {
		t.Fatal("Undo took back other answers' steps")
	}

	// The options page lists the registered repository; auto-send, turned
	// on there for one site by a click, sends the feedback on that site.
	opts, cancel := chromedp.NewContext(b.browser)
	defer cancel()
	b.run(opts, chromedp.Navigate("chrome-extension://"+extensionID+"/options.html"), chromedp.WaitReady(chromedp.CSS("#sites tr")))
	b.waitFor("the options page's repositories", func() (bool, string) {
		txt := eval[string](b, opts, `document.getElementById("bridge").textContent`)
		return strings.Contains(txt, "registered repositories: project"), txt
	})
	b.run(opts, chromedp.Click(chromedp.CSS(`#sites tr:nth-child(4) td:nth-child(3) input`)))
	b.waitFor("auto-send on for chat.qwen.ai", func() (bool, string) {
		st := eval[string](b, opts, `chrome.storage.local.get("settings").then((s) => JSON.stringify(((s.settings || {}).sites || {})["chat.qwen.ai"] || {}))`)
		return strings.Contains(st, `"autoSend":true`) && strings.Contains(st, `"enabled":true`), st
	})
	qwen := b.page("chat.qwen.ai")
	answer := strings.ReplaceAll(siteAnswer("chat.qwen.ai"), "sites/", "auto/")
	b.stream(qwen, answer)
	b.click(qwen, b.panelWith(qwen, "1 step(s), 1 file(s)"), "Apply")
	b.waitFor("the feedback sent", func() (bool, string) {
		return eval[int](b, qwen, "window.sent") == 1, eval[string](b, qwen, "fixture.inputText()")
	})
	if n := len(b.steps()); n != 7 {
		t.Fatalf("%d steps", n)
	}
	g.AssertClean()
	g.Fsck()
}

// A page's own request to autocoder's MCP server over HTTP is refused,
// even with the token: the browser's CORS preflight gets a 403, and a
// request that needs none carries the page's Origin, which the server
// refuses.
func TestExtensionPageCannotReachTheMCPServer(t *testing.T) {
	b := setup(t)
	g := b.repo
	before := g.Snapshot()
	cmd := exec.Command(b.exe, "mcp", "--http", "127.0.0.1:0", "--root", g.Dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	var url, tokenFile string
	for (url == "" || tokenFile == "") && sc.Scan() {
		if m := regexp.MustCompile(`at (http://\S+/mcp) `).FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
		}
		if m := regexp.MustCompile(`the token in (.+)$`).FindStringSubmatch(sc.Text()); m != nil {
			tokenFile = m[1]
		}
	}
	token, err := os.ReadFile(tokenFile)
	if err != nil || url == "" {
		t.Fatalf("mcp --http: %q %q %v", url, tokenFile, err)
	}
	go func() { // keep its standard error drained
		for sc.Scan() {
		}
	}()

	tab := b.page("chatgpt.com")
	call := `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "fs_write", "arguments": {"path": "pwned.txt", "content": "x"}}}`
	r := eval[map[string]string](b, tab, `(async () => {
		const url = "`+url+`", r = {};
		const init = {jsonrpc: "2.0", id: 1, method: "initialize", params: {protocolVersion: "2025-06-18", capabilities: {}, clientInfo: {name: "page", version: "1"}}};
		try {
			const res = await fetch(url, {method: "POST", body: JSON.stringify(init),
				headers: {"content-type": "application/json", "accept": "application/json, text/event-stream", "authorization": "Bearer `+strings.TrimSpace(string(token))+`"}});
			r.cors = "answered " + res.status;
		} catch (e) { r.cors = "blocked: " + e.message; }
		try {
			await fetch(url, {method: "POST", mode: "no-cors", headers: {"content-type": "text/plain"}, body: `+"`"+call+"`"+`});
			r.simple = "sent";
		} catch (e) { r.simple = "blocked: " + e.message; }
		return r;
	})()`)
	if !strings.HasPrefix(r["cors"], "blocked") {
		t.Fatalf("the page's request reached the MCP server: %v", r)
	}
	// The simple request may leave the browser, but the server refuses it
	// (the page's Origin): nothing in the repository changed.
	if _, err := os.Stat(filepath.Join(g.Dir, "pwned.txt")); err == nil {
		t.Fatal("the page wrote through the MCP server")
	}
	g.AssertUnchanged(before)
}

// extensionID is bridge.ExtensionID, as a page would have to name it.
const extensionID = "keefahccgmkcbfholpgfbjpooblkgkfk"
