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
