package main

import (
	"fmt"
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
		main()
	}
	// The tests share one HOME with a git identity (gittest.Main), so that
	// those that need no HOME of their own may run in parallel.
	testscript.Main(isolated{m}, map[string]func(){
		"autocoder": main,
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

// The collector is off for the commands that end by themselves, and on for
// the servers and the model loop, which run for hours (main, endsByItself).
func TestOneShotCommands(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"autocoder", "apply", "r.md"}, true},
		{[]string{"autocoder", "-C", "dir", "undo"}, true},
		{[]string{"autocoder", "--C=dir", "log"}, true},
		{[]string{"autocoder", "-C", "run", "apply"}, true},
		{[]string{"autocoder", "mcp"}, false},
		{[]string{"autocoder", "-C", "dir", "run", "task"}, false},
		{[]string{"autocoder", "bridge"}, false},
		{[]string{"autocoder", "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"}, false},
		{[]string{"autocoder", "--version"}, false},
		{[]string{"autocoder"}, false},
	} {
		if got := endsByItself(c.args); got != c.want {
			t.Errorf("endsByItself(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// A one-shot command does not collect garbage below the memory limit: a
// 10 MB answer parsed with GODEBUG=gctrace=1 prints no collection, where
// the same parse with GOGC=100 set by the user prints some (the check can
// see a collection).
func TestOneShotCommandsDoNotCollect(t *testing.T) {
	t.Parallel()
	resp := filepath.Join(t.TempDir(), "big.md")
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "#####--\n{\"metadata\": {\"step_id\": \"s%d\"}, \"file_operations\": [{\"action_type\": \"create_file\", \"path\": \"f%d.txt\", \"file_content\": %q}]}\n--#####\n", i, i, strings.Repeat("x", 10000))
	}
	if err := os.WriteFile(resp, []byte(b.String()), 0o666); err != nil {
		t.Fatal(err)
	}
	gcs := func(env ...string) int {
		t.Helper()
		cmd := exec.Command(os.Args[0], "parse", "--format", "json", resp)
		cmd.Env = append(os.Environ(), append(env, "AUTOCODER_TEST_AS_BINARY=1", "GODEBUG=gctrace=1")...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("autocoder parse: %v\n%s", err, stderr.String())
		}
		return strings.Count("\n"+stderr.String(), "\ngc ")
	}
	if n := gcs("GOGC=100"); n == 0 {
		t.Fatalf("with GOGC=100 the parse of a 10 MB answer collected nothing: the check cannot see a collection")
	}
	// In a control group without room for that heap (roomForHeap), as
	// a CI container may be, the collector stays on.
	if n, room := gcs(), roomForHeap("/"); room && n != 0 {
		t.Errorf("autocoder parse collected %d times; a one-shot command runs without the collector below %d bytes", n, oneShotMemoryLimit)
	} else if !room && n == 0 {
		t.Errorf("autocoder parse collected nothing in a control group limited below %d bytes", 2*oneShotMemoryLimit)
	}
}
