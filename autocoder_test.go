package autocoder_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder"
	"github.com/autocoder/autocoder/config"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

func TestMain(m *testing.M) { os.Exit(gittest.Main(m)) }

// TestOpenBuildsTheEngineWithItsRealPolicy: one call gives the engine the
// settings in effect — the user's own file allows a program, the
// repository's untrusted file is refused its program settings (with the
// warning on Log) but narrows the paths and chooses the branch prefix —
// so every caller (cmd, MCP, the bridge, run, their tests) applies the
// same policy.
func TestOpenBuildsTheEngineWithItsRealPolicy(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{
		"a.txt": "one\n",
		"autocoder.toml": "[apply]\nbranch_prefix = \"ai/\"\n[paths]\ndeny = [\"secret/**\"]\n" +
			"[programs]\nenabled = true\nallow = [\"touch\"]\n",
	})
	user := t.TempDir()
	if err := os.MkdirAll(filepath.Join(user, "autocoder"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "autocoder", "config.toml"), []byte("[programs]\nenabled = true\nallow = [\"true\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	e, err := autocoder.Open(context.Background(), g.Dir, autocoder.Options{Log: &log, Dirs: &config.Dirs{Config: user, State: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !strings.Contains(log.String(), "is not trusted") || !strings.Contains(log.String(), "programs.allow") {
		t.Errorf("no warning about the untrusted file's settings:\n%s", log.String())
	}
	if ok, why := e.Programs.Allowed(step.Program{Command: "true", Args: []string{}}); !ok {
		t.Errorf("the user's own file allows true, the policy refuses it: %s", why)
	}
	if ok, why := e.Programs.Allowed(step.Program{Command: "touch", Args: []string{"x"}}); ok || !strings.Contains(why, "autocoder trust") {
		t.Errorf("the untrusted file's allow entry counted (ok=%v, why=%q)", ok, why)
	}
	s := &step.Step{ID: "s1", Reason: "try", Dialect: "axon",
		Ops:      []step.Op{{Kind: step.OpWrite, Path: "secret/key.txt", Content: []byte("k\n")}},
		Programs: []step.Program{{Command: "touch", Args: []string{"made.txt"}}}}
	rep := e.Execute(context.Background(), []step.Item{{Step: s}}, txn.RunOptions{})
	if r := rep.Results[0]; r.Status != step.StatusFailed || r.Class != step.ClassRefused {
		t.Fatalf("a denied path: %s %s %s", r.Status, r.Class, r.Error)
	}
	if _, err := os.Stat(filepath.Join(g.Dir, "secret")); !os.IsNotExist(err) {
		t.Fatal("the refused step wrote its file")
	}
	if out := g.Git("status", "--porcelain"); out != "" {
		t.Fatalf("git status after a refusal:\n%s", out)
	}
	s2 := &step.Step{ID: "s2", Reason: "ok", Dialect: "axon",
		Ops:      []step.Op{{Kind: step.OpWrite, Path: "b.txt", Content: []byte("b\n")}},
		Programs: []step.Program{{Command: "true", Args: []string{}}}}
	rep = e.Execute(context.Background(), []step.Item{{Step: s2}}, txn.RunOptions{})
	if r := rep.Results[0]; r.Status != step.StatusApplied || len(r.Programs) != 1 || r.Programs[0].Status != step.ProgramSuccess {
		t.Fatalf("an allowed step: %+v", r)
	}
	if rep.Branch != "ai/main" {
		t.Errorf("work branch %q: the file's branch_prefix chooses ai/", rep.Branch)
	}
	g.Git("fsck", "--strict")
}

// TestOpenRefusesAFolderOutsideARepository: the error says so and
// nothing is created.
func TestOpenRefusesAFolderOutsideARepository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := autocoder.Open(context.Background(), dir, autocoder.Options{Dirs: &config.Dirs{}})
	if err == nil || step.HintOf(err) == "" {
		t.Fatalf("Open outside a repository: %v (hint %q)", err, step.HintOf(err))
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("Open left %d entries in the folder", len(ents))
	}
}

// Run reads the settings again where they changed since (PolicyChanged),
// and where they no longer load, keeps those read before, with a warning
// that says why at each Run until they load again.
func TestRunReadsChangedSettingsAndKeepsThemWhereTheyNoLongerLoad(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	dirs := ownDirs(t)
	var log bytes.Buffer
	e := openEngine(t, g.Dir, autocoder.Options{Log: &log, Dirs: dirs})
	write := func(id, path string) step.Result {
		t.Helper()
		return runOne(t, e, writeStep(id, path, id+"\n"))
	}
	refused := func(r step.Result, path string) {
		t.Helper()
		if r.Status != step.StatusFailed || r.Class != step.ClassRefused || !strings.Contains(r.Error, path) {
			t.Fatalf("a write to %s: %s %s %s", path, r.Status, r.Class, r.Error)
		}
		if _, ok := g.Read(path); ok {
			t.Fatalf("the refused step wrote %s", path)
		}
	}
	if r := write("s1", "b.txt"); r.Status != step.StatusApplied {
		t.Fatalf("b.txt before any setting: %s %s", r.Status, r.Error)
	}
	if e.PolicyChanged() {
		t.Fatal("PolicyChanged with nothing changed")
	}
	// The repository's file now denies c.txt: the next Run reads it.
	g.Write("autocoder.toml", "[paths]\ndeny = [\"c.txt\"]\n")
	if !e.PolicyChanged() {
		t.Fatal("PolicyChanged misses a new autocoder.toml")
	}
	refused(write("s2", "c.txt"), "c.txt")
	// A TOML error: c.txt stays denied, and the log says why, each time.
	g.Write("autocoder.toml", "[paths]\ndeny = [\"d.txt\"\n")
	log.Reset()
	refused(write("s3", "c.txt"), "c.txt")
	if r := write("s4", "d.txt"); r.Status != step.StatusApplied {
		t.Fatalf("d.txt under the settings read before: %s %s", r.Status, r.Error)
	}
	if n := strings.Count(log.String(), "cannot be read again"); n != 2 || !strings.Contains(log.String(), "autocoder.toml") {
		t.Fatalf("%d warnings, want one per Run, naming the file:\n%s", n, log.String())
	}
	// Mended: it counts from the next Run on.
	g.Write("autocoder.toml", "[paths]\ndeny = [\"e.txt\"]\n")
	refused(write("s5", "e.txt"), "e.txt")
	if r := write("s6", "c.txt"); r.Status != step.StatusApplied {
		t.Fatalf("c.txt once the file no longer denies it: %s %s", r.Status, r.Error)
	}
	if strings.Contains(log.String(), "next run") {
		t.Errorf("settings that only narrowed are said to count from the next run:\n%s", log.String())
	}
	if st := g.Status(); st != "?? autocoder.toml\n" {
		t.Fatalf("git status:\n%s", st)
	}
	g.Fsck()
}

// widenRepo is a repository whose autocoder.toml (committed, untrusted)
// denies secrets/, limits files to 100 bytes and turns programs off, for a
// user whose own deny list (which replaces the default one) leaves
// autocoder.toml writable, and who once trusted another content of the
// file, trusted (a branch where it allowed touch): the trust record holds
// that content's SHA-256. It returns the engine opened there and a Run of
// one step.
func widenRepo(t *testing.T, trusted string) (*gittest.Repo, *config.Dirs, *bytes.Buffer, func(*step.Step) step.Result) {
	t.Helper()
	g := gittest.NewWithCommit(t, map[string]string{
		"a.txt":          "a\n",
		"autocoder.toml": "[apply]\nmax_file_bytes = 100\n[paths]\ndeny = [\"secrets/\"]\n[programs]\nenabled = false\n",
	})
	user := t.TempDir()
	if err := os.MkdirAll(filepath.Join(user, "autocoder"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "autocoder", "config.toml"), []byte("[paths]\ndeny = []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dirs := &config.Dirs{Config: user, State: t.TempDir()}
	trust(t, dirs, g.Dir, trusted)
	log := new(bytes.Buffer)
	e := openEngine(t, g.Dir, autocoder.Options{Dirs: dirs, Log: log})
	return g, dirs, log, func(s *step.Step) step.Result {
		t.Helper()
		return runOne(t, e, s)
	}
}

func writeStep(id, path, content string) *step.Step {
	return &step.Step{ID: id, Reason: "r", Dialect: "axon", Ops: []step.Op{{Kind: step.OpWrite, Path: path, Content: []byte(content)}}}
}

// openEngine opens the repository at dir with o, closed when the test ends.
func openEngine(t *testing.T, dir string, o autocoder.Options) *autocoder.Engine {
	t.Helper()
	e, err := autocoder.Open(context.Background(), dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// runOne is e's Run of s alone (an answer of one step), and its result.
func runOne(t *testing.T, e *autocoder.Engine, s *step.Step) step.Result {
	t.Helper()
	return e.Run(context.Background(), []step.Item{{Step: s}}, txn.RunOptions{})[0]
}

// ownDirs are user folders of the test's own, empty.
func ownDirs(t *testing.T) *config.Dirs {
	return &config.Dirs{Config: t.TempDir(), State: t.TempDir()}
}

// trustedRepo is a repository whose autocoder.toml is toml, which the user
// trusts, and the engine opened there; path is the file's.
func trustedRepo(t *testing.T, toml string) (g *gittest.Repo, dirs *config.Dirs, path string, e *autocoder.Engine) {
	t.Helper()
	g = gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "autocoder.toml": toml})
	dirs = ownDirs(t)
	path = trust(t, dirs, g.Dir, toml)
	return g, dirs, path, openEngine(t, g.Dir, autocoder.Options{Dirs: dirs})
}

// trust has the user trust the repository at dir's autocoder.toml with
// content toml (autocoder trust), and returns the file's path.
func trust(t *testing.T, dirs *config.Dirs, dir, toml string) string {
	t.Helper()
	path := filepath.Join(dir, "autocoder.toml")
	if err := dirs.Trust(path, config.Sum([]byte(toml))); err != nil {
		t.Fatal(err)
	}
	return path
}

// A step that rewrites the repository's autocoder.toml never widens what
// the next Run may do: DESIGN's "a configuration written during a session
// never takes effect in it". Settings read again may narrow those the
// engine began with, not widen them: the deny pattern and the size limit
// the file set at the start hold after a step emptied it.
func TestRunKeepsTheDenyAndLimitsAStepRemoved(t *testing.T) {
	t.Parallel()
	g, dirs, _, run := widenRepo(t, "[programs]\nenabled = true\n")
	if r := run(writeStep("s1", "autocoder.toml", "")); r.Status != step.StatusApplied {
		t.Fatalf("autocoder.toml, which the user's deny list leaves writable: %s %s", r.Status, r.Error)
	}
	before := g.Snapshot()
	if r := run(writeStep("s2", "secrets/key.txt", "k\n")); r.Status != step.StatusFailed || r.Class != step.ClassRefused {
		t.Errorf("secrets/, denied when the run began, after a step emptied autocoder.toml: %s %s %s", r.Status, r.Class, r.Error)
	}
	if r := run(writeStep("s3", "big.txt", strings.Repeat("x", 200)+"\n")); r.Status != step.StatusFailed || r.Class != step.ClassRefused {
		t.Errorf("a file over the 100 bytes the run began with: %s %s %s", r.Status, r.Class, r.Error)
	}
	// autocoder untrust (of the content trusted once) narrows: it does
	// not let in what the step's file dropped.
	if _, err := dirs.Untrust(filepath.Join(g.Dir, "autocoder.toml")); err != nil {
		t.Fatal(err)
	}
	if r := run(writeStep("s4", "secrets/key.txt", "k\n")); r.Status != step.StatusFailed || r.Class != step.ClassRefused {
		t.Errorf("secrets/ after autocoder untrust: %s %s %s", r.Status, r.Class, r.Error)
	}
	g.AssertUnchanged(before)
	g.Fsck()
}

// A content of autocoder.toml the user trusted once, written back by a
// step, does not turn its programs or its verify command on in the run:
// they were off when it began.
func TestRunDoesNotTakeATrustedContentAStepWroteBack(t *testing.T) {
	t.Parallel()
	trusted := "[programs]\nenabled = true\nallow = [\"touch\"]\n[verify]\ncommand = \"touch verified.txt\"\n"
	g, _, log, run := widenRepo(t, trusted)
	if r := run(writeStep("s1", "autocoder.toml", trusted)); r.Status != step.StatusApplied {
		t.Fatalf("autocoder.toml: %s %s", r.Status, r.Error)
	}
	s := writeStep("s2", "b.txt", "b\n")
	s.Programs = []step.Program{{Command: "touch", Args: []string{"ran.txt"}}}
	r := run(s)
	if len(r.Programs) != 1 || r.Programs[0].Status != step.ProgramRefused {
		t.Errorf("touch, off when the run began, after a step wrote a trusted content: %+v", r.Programs)
	}
	for _, f := range []string{"ran.txt", "verified.txt"} {
		if _, ok := g.Read(f); ok {
			t.Errorf("%s was made: the content a step wrote took effect in the run", f)
		}
	}
	if !strings.Contains(log.String(), "count from the next run") {
		t.Errorf("the log does not say the wider settings count from the next run:\n%s", log)
	}
	g.Fsck()
}

// What the caller chose at Open outlives a reading of the settings again:
// --allow-programs still lets a program run, and the work branch and its
// prefix stay the run's, where autocoder.toml, changed, now chooses
// another prefix and denies a path.
func TestRunKeepsTheCallersChoicesWhenItReadsTheSettingsAgain(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	dirs := ownDirs(t)
	e := openEngine(t, g.Dir, autocoder.Options{Dirs: dirs, AllowPrograms: true, Branch: "feat"})
	run := func(s *step.Step) step.Result {
		t.Helper()
		return runOne(t, e, s)
	}
	if r := run(writeStep("s1", "b.txt", "b\n")); r.Status != step.StatusApplied {
		t.Fatalf("b.txt: %s %s", r.Status, r.Error)
	}
	g.Write("autocoder.toml", "[apply]\nbranch_prefix = \"ai/\"\n[paths]\ndeny = [\"c.txt\"]\n")
	if r := run(writeStep("s2", "c.txt", "c\n")); r.Status != step.StatusFailed || r.Class != step.ClassRefused {
		t.Fatalf("c.txt, which the changed file denies: %s %s %s", r.Status, r.Class, r.Error)
	}
	s := writeStep("s3", "d.txt", "d\n")
	s.Programs = []step.Program{{Command: "touch", Args: []string{"ran.txt"}}}
	r := run(s)
	if r.Status != step.StatusApplied || len(r.Programs) != 1 || r.Programs[0].Status != step.ProgramSuccess {
		t.Fatalf("a program under --allow-programs after the settings were read again: %s %s %+v", r.Status, r.Error, r.Programs)
	}
	if b, _ := e.Head(); b != "autocoder/feat" {
		t.Errorf("the work branch is %q, want autocoder/feat", b)
	}
	if out := g.Git("log", "--format=%s", "autocoder/feat"); strings.Count(out, "\n") < 3 {
		t.Errorf("autocoder/feat holds:\n%s", out)
	}
	if out := g.Git("branch", "--list", "ai/*"); out != "" {
		t.Errorf("a branch of the new prefix: %s", out)
	}
	g.Fsck()
}

// autocoder trust during a run is the user's word on the repository's
// file as it is now: its programs count from the next answer, as an
// untrust narrows at once. (A step cannot write a trust record: it lies
// outside the repository, or is denied there.)
func TestRunTakesATrustGivenDuringTheRun(t *testing.T) {
	t.Parallel()
	toml := "[programs]\nenabled = true\nallow = [\"touch\"]\n"
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "autocoder.toml": toml})
	dirs := ownDirs(t)
	e := openEngine(t, g.Dir, autocoder.Options{Dirs: dirs})
	touch := func(id, file string) step.ProgramStatus {
		t.Helper()
		r := runOne(t, e, &step.Step{ID: id, Reason: "r", Dialect: "axon", Programs: []step.Program{{Command: "touch", Args: []string{file}}}})
		if len(r.Programs) != 1 {
			t.Fatalf("%s: %+v", id, r)
		}
		return r.Programs[0].Status
	}
	if st := touch("p1", "one.txt"); st != step.ProgramRefused {
		t.Fatalf("touch before the file is trusted: %s", st)
	}
	path := trust(t, dirs, g.Dir, toml)
	if st := touch("p2", "two.txt"); st != step.ProgramSuccess {
		t.Fatalf("touch once the user trusted the file during the run: %s", st)
	}
	if _, err := dirs.Untrust(path); err != nil {
		t.Fatal(err)
	}
	if st := touch("p3", "three.txt"); st != step.ProgramRefused {
		t.Fatalf("touch after autocoder untrust: %s", st)
	}
	for f, want := range map[string]bool{"one.txt": false, "two.txt": true, "three.txt": false} {
		if _, ok := g.Read(f); ok != want {
			t.Errorf("%s made: %v, want %v", f, ok, want)
		}
	}
	g.Fsck()
}

// A program that keeps running (a server) started while the repository's
// file was trusted is stopped when the settings read again no longer
// allow it (autocoder untrust): it does not go on running the file's code
// for the rest of the run. The next report on the programs says it was
// stopped, and why.
func TestRunStopsALiveProgramTheSettingsNoLongerAllow(t *testing.T) {
	t.Parallel()
	toml := "[programs]\nenabled = true\nallow = [\"sleep\"]\n"
	g, dirs, path, e := trustedRepo(t, toml)
	s := &step.Step{ID: "p1", Reason: "serve", Dialect: "axon", Programs: []step.Program{{Name: "server", Command: "sleep", Args: []string{"600"}, Live: true}}}
	r := runOne(t, e, s)
	if len(r.Programs) != 1 || r.Programs[0].Status != step.ProgramRunning {
		t.Fatalf("the live program: %+v", r.Programs)
	}
	if _, err := dirs.Untrust(path); err != nil {
		t.Fatal(err)
	}
	if r := runOne(t, e, writeStep("s2", "b.txt", "b\n")); r.Status != step.StatusApplied {
		t.Fatalf("b.txt: %s %s", r.Status, r.Error)
	}
	live := e.Live(false, "")
	if len(live) != 1 || len(live[0].Programs) != 1 {
		t.Fatalf("the report on the live programs: %+v", live)
	}
	if p := live[0].Programs[0]; p.Status != step.ProgramTerminated || !strings.Contains(p.Error, "no longer allow") {
		t.Fatalf("the live program after autocoder untrust: %s %q", p.Status, p.Error)
	}
	if again := e.Live(false, ""); len(again) != 0 {
		t.Fatalf("the stopped program is reported again: %+v", again)
	}
	g.Fsck()
}

// The verify command the user trusted is a gate a step cannot take away:
// a step that rewrites the trusted autocoder.toml (untrusted from then on)
// leaves the run's verify command in force, so the next step that fails
// it is rolled back. autocoder untrust, the user's word, still stops it.
func TestRunKeepsTheVerifyAStepTookAway(t *testing.T) {
	t.Parallel()
	toml := "[paths]\ndeny = []\n[verify]\ncommand = \"test ! -e bad.txt\"\n"
	g, dirs, path, e := trustedRepo(t, toml)
	run := func(s *step.Step) step.Result {
		t.Helper()
		return runOne(t, e, s)
	}
	if r := run(writeStep("s1", "autocoder.toml", "")); r.Status != step.StatusApplied {
		t.Fatalf("autocoder.toml, which the trusted file's deny list leaves writable: %s %s", r.Status, r.Error)
	}
	before := g.Snapshot()
	if r := run(writeStep("s2", "bad.txt", "bad\n")); r.Status != step.StatusFailed {
		t.Fatalf("bad.txt, which the run's verify command fails, after a step emptied autocoder.toml: %s %s", r.Status, r.Error)
	}
	g.AssertUnchanged(before)
	if _, err := dirs.Untrust(path); err != nil {
		t.Fatal(err)
	}
	if r := run(writeStep("s3", "bad.txt", "bad\n")); r.Status != step.StatusApplied {
		t.Fatalf("bad.txt after autocoder untrust, which stops the file's verify command: %s %s", r.Status, r.Error)
	}
	g.Fsck()
}
