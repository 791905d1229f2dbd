package main

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain registers the real binary: scripts run `autocoder` as a
// separate process, exactly as a user does.
func TestMain(m *testing.M) {
	// The pseudo-terminal test (interactive_test.go) starts this binary as
	// autocoder itself, with the terminal as its standard input.
	if os.Getenv("AUTOCODER_TEST_AS_BINARY") == "1" {
		os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
	}
	// The tests share one HOME with a git identity (gittest.Main), so that
	// those that need no HOME of their own may run in parallel.
	testscript.Main(isolated{m}, map[string]func(){
		"autocoder": func() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// isolated runs the tests under gittest.Main.
type isolated struct{ m *testing.M }

func (i isolated) Run() int { return gittest.Main(i.m) }

// TestScripts runs the end-to-end scripts in testdata/script, one per
// behaviour. Besides testscript's own commands they have:
//
//	snap NAME       remember the repository in the current folder
//	unchanged NAME  fail unless nothing changed since snap NAME (the index byte for byte)
//	restored NAME   the same, but index entries may carry new stat data
//	gitok           fail unless git status is clean and git fsck --strict is silent
//	fsck            fail unless git fsck --strict is silent
//
// and the model commands of model_test.go (fakemodel, modelrequests),
// xserver (xserver_test.go) and schema (schema_test.go).
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script"))
}

func scriptParams(dir string) testscript.Params {
	// Scripts run in parallel and share this map: mu guards it.
	var mu sync.Mutex
	snaps := map[string]gittest.Snapshot{}
	p := testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			os.MkdirAll(home, 0o777)
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			// maintenance.auto: a script's git commit would start git
			// maintenance run --auto, a process that finds nothing to do
			// in a repository this small (autocoder itself commits with
			// commit-tree, which never starts it).
			return os.WriteFile(filepath.Join(home, ".gitconfig"),
				[]byte("[user]\n\tname = Script User\n\temail = script@example.com\n[init]\n\tdefaultBranch = main\n[maintenance]\n\tauto = false\n"), 0o666)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"snap": func(ts *testscript.TestScript, neg bool, args []string) {
				s, err := gittest.TakeSnapshot(ts.MkAbs("."))
				ts.Check(err)
				mu.Lock()
				snaps[ts.Getenv("WORK")+args[0]] = s
				mu.Unlock()
			},
			"unchanged": func(ts *testscript.TestScript, neg bool, args []string) {
				mu.Lock()
				before, ok := snaps[ts.Getenv("WORK")+args[0]]
				mu.Unlock()
				compareSnap(ts, before, ok, args[0], true)
			},
			"restored": func(ts *testscript.TestScript, neg bool, args []string) {
				mu.Lock()
				before, ok := snaps[ts.Getenv("WORK")+args[0]]
				mu.Unlock()
				compareSnap(ts, before, ok, args[0], false)
			},
			"gitok": func(ts *testscript.TestScript, neg bool, args []string) {
				out := gitOut(ts, "--no-optional-locks", "status", "--porcelain", "--untracked-files=all")
				if out != "" {
					ts.Fatalf("git status is not clean:\n%s", out)
				}
				fsck(ts)
			},
			"fsck": func(ts *testscript.TestScript, neg bool, args []string) { fsck(ts) },
		},
	}
	maps.Copy(p.Cmds, modelCmds())
	maps.Copy(p.Cmds, xCmds())
	maps.Copy(p.Cmds, schemaCmds())
	return p
}

func compareSnap(ts *testscript.TestScript, before gittest.Snapshot, ok bool, name string, raw bool) {
	if !ok {
		ts.Fatalf("no snapshot %s", name)
	}
	after, err := gittest.TakeSnapshot(ts.MkAbs("."))
	ts.Check(err)
	if d := before.Diff(after, raw); len(d) > 0 {
		ts.Fatalf("the repository changed since snap %s:\n%s", name, strings.Join(d, "\n"))
	}
}

func gitOut(ts *testscript.TestScript, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = append(os.Environ(), "HOME="+ts.Getenv("HOME"), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		ts.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func fsck(ts *testscript.TestScript) {
	if out := gitOut(ts, gittest.FsckArgs(ts.MkAbs("."))...); strings.TrimSpace(out) != "" {
		ts.Fatalf("git fsck --strict:\n%s", out)
	}
}
