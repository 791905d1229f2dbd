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
	dirs := &config.Dirs{Config: t.TempDir(), State: t.TempDir()}
	var log bytes.Buffer
	e, err := autocoder.Open(context.Background(), g.Dir, autocoder.Options{Log: &log, Dirs: dirs})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	write := func(id, path string) step.Result {
		t.Helper()
		s := &step.Step{ID: id, Reason: "r", Dialect: "axon", Ops: []step.Op{{Kind: step.OpWrite, Path: path, Content: []byte(id + "\n")}}}
		return e.Run(context.Background(), []step.Item{{Step: s}}, txn.RunOptions{})[0]
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
	if st := g.Status(); st != "?? autocoder.toml\n" {
		t.Fatalf("git status:\n%s", st)
	}
	g.Fsck()
}
