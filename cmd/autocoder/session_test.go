package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// userCheckout is what a session must never touch: the user's files (the
// unsaved, staged and untracked work of crashRepo included), index and
// HEAD. The refs are left out: sessions make work branches.
func userCheckout(t *testing.T, g *gittest.Repo) gittest.Snapshot {
	t.Helper()
	s := g.Snapshot()
	s.Refs = ""
	return s
}

// worktrees is what git worktree list says: one line per worktree.
func worktrees(g *gittest.Repo) []string {
	return strings.Split(strings.TrimSpace(g.Git("worktree", "list")), "\n")
}

// TestApplyWorktreeSessionsSideBySide: four `apply --worktree` at once in
// one repository each make a worktree and a work branch of their own
// (autocoder/main to autocoder/main-4, all made from the user's HEAD),
// commit their step there, and end with their worktree removed and their
// branch kept; the user's checkout (files, the user's unsaved, staged and
// untracked work, index, HEAD) is as it was, and git fsck --strict is
// silent.
func TestApplyWorktreeSessionsSideBySide(t *testing.T) {
	t.Parallel()
	g := crashRepo(t)
	start := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	before := userCheckout(t, g)
	dir := t.TempDir()
	var wg sync.WaitGroup
	files := []string{"w.txt", "x.txt", "y.txt", "z.txt"}
	outs := make([]string, len(files))
	errs := make([]error, len(files))
	for i, name := range files {
		resp := filepath.Join(dir, name+".md")
		must(t, os.WriteFile(resp, []byte("~~~~~act\nwrite_file "+name+"\n~~~~~\n~~~~~text\n"+name+"\n~~~~~\n"), 0o644))
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = autocoder(t, g.Dir, nil, "apply", "--worktree", resp)
		}()
	}
	wg.Wait()
	for i := range errs {
		if errs[i] != nil {
			t.Fatalf("apply --worktree %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	written := map[string]bool{}
	for _, b := range []string{"autocoder/main", "autocoder/main-2", "autocoder/main-3", "autocoder/main-4"} {
		if got := g.Git("log", "--format=%(trailers:key=Autocoder-Step,valueonly)", start+".."+b); strings.TrimSpace(got) != "axon-1" {
			t.Errorf("%s has not one step over the user's HEAD:\n%s\n%s", b, got, strings.Join(outs, "\n"))
		}
		for _, f := range strings.Fields(g.Git("show", "--name-only", "--format=", b)) {
			written[f] = true
		}
		if from := strings.TrimSpace(g.Git("config", "branch."+b+".autocoderFrom")); from != "refs/heads/main" {
			t.Errorf("%s records it was made from %q, not refs/heads/main", b, from)
		}
	}
	for _, f := range files {
		if !written[f] || len(written) != len(files) {
			t.Errorf("the branches' steps wrote %v, want %v, one each", written, files)
		}
	}
	if w := worktrees(g); len(w) != 1 {
		t.Errorf("the sessions' worktrees were not removed:\n%s", strings.Join(w, "\n"))
	}
	g.Fsck()
	g.AssertUnchanged(withRefs(before, g))
	for i := range outs {
		if !strings.Contains(outs[i], "stays for review") {
			t.Errorf("apply --worktree does not say where its work is:\n%s", outs[i])
		}
	}
}

func withRefs(s gittest.Snapshot, g *gittest.Repo) gittest.Snapshot {
	s.Refs = g.Snapshot().Refs
	return s
}

// TestApplyWorktreeFailureChangesNothing: a session whose step fails (and
// one whose response has no block) ends with its worktree and its branch
// removed: the repository is as before, refs included.
func TestApplyWorktreeFailureChangesNothing(t *testing.T) {
	t.Parallel()
	g := crashRepo(t)
	before := g.Snapshot()
	dir := t.TempDir()
	fail := filepath.Join(dir, "fail.md")
	must(t, os.WriteFile(fail, []byte("~~~~~act\nreplace README.md\n~~~~~\n~~~~~text\nnot there\n~~~~~\n~~~~~text\nx\n~~~~~\n"), 0o644))
	none := filepath.Join(dir, "none.md")
	must(t, os.WriteFile(none, []byte("no block here\n"), 0o644))
	for _, resp := range []string{fail, none} {
		out, err := autocoder(t, g.Dir, nil, "apply", "--worktree", resp)
		if err == nil {
			t.Fatalf("a failing apply --worktree succeeded:\n%s", out)
		}
		if !strings.Contains(out, "session ended with no step") {
			t.Errorf("the session does not say it removed itself:\n%s", out)
		}
		g.AssertUnchanged(before)
		if w := worktrees(g); len(w) != 1 {
			t.Errorf("a worktree stayed:\n%s", strings.Join(w, "\n"))
		}
	}
	// The exit codes are apply's own: 1 a step failed, 2 no block.
	for resp, want := range map[string]int{fail: 1, none: 2} {
		cmd := exec.Command("autocoder", "-C", g.Dir, "apply", "--worktree", resp)
		if err := cmd.Run(); cmd.ProcessState.ExitCode() != want {
			t.Errorf("apply --worktree %s: %v, want exit code %d", filepath.Base(resp), err, want)
		}
	}
	// A --branch that exists is refused (exit 2), before anything is made.
	g.Git("branch", "autocoder/taken")
	before = g.Snapshot()
	cmd := exec.Command("autocoder", "-C", g.Dir, "apply", "--worktree", "--branch", "taken", fail)
	if out, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "cannot start a session") {
		t.Errorf("apply --worktree --branch of an existing branch: exit %d\n%s", cmd.ProcessState.ExitCode(), out)
	}
	g.AssertUnchanged(before)
	g.Fsck()

	// A repository with no commit yet has nothing to start a session from.
	u := gittest.New(t)
	before = u.Snapshot()
	cmd = exec.Command("autocoder", "-C", u.Dir, "apply", "--worktree", fail)
	if out, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "none yet") {
		t.Errorf("apply --worktree with no commit: exit %d\n%s", cmd.ProcessState.ExitCode(), out)
	}
	u.AssertUnchanged(before)
}

// sessionsJSON runs autocoder sessions --format json in dir.
func sessionsJSON(t *testing.T, dir string) []map[string]string {
	t.Helper()
	out, err := exec.Command("autocoder", "-C", dir, "sessions", "--format", "json").Output()
	if err != nil {
		t.Fatalf("autocoder sessions: %v", err)
	}
	validate(t, "sessions", out)
	var got struct{ Sessions []map[string]string }
	must(t, json.Unmarshal(out, &got))
	return got.Sessions
}

// TestWorktreeSessionListedWhileItRuns: `autocoder mcp --worktree` works in
// a session of its own: while it serves, autocoder sessions (from the
// user's checkout) lists it as running with its branch and folder, which
// is a worktree of the repository outside the user's git status; when its
// client goes away the worktree goes too, and its branch (no step was
// made) with it. A session whose command was killed stays, listed as kept.
func TestWorktreeSessionListedWhileItRuns(t *testing.T) {
	t.Parallel()
	g := crashRepo(t)
	before := g.Snapshot()
	session := regexp.MustCompile(`^autocoder: session on (\S+) in (.+)$`)
	start := func() (*exec.Cmd, *os.File, string, string) {
		cmd := exec.Command("autocoder", "-C", g.Dir, "mcp", "--worktree")
		stdin, err := cmd.StdinPipe()
		must(t, err)
		stderr, err := cmd.StderrPipe()
		must(t, err)
		must(t, cmd.Start())
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := session.FindStringSubmatch(sc.Text()); m != nil {
				go func() {
					for sc.Scan() {
					}
				}()
				return cmd, stdin.(*os.File), m[1], m[2]
			}
		}
		t.Fatal("mcp --worktree said no session")
		return nil, nil, "", ""
	}
	cmd, stdin, branch, path := start()
	if branch != "autocoder/main" {
		t.Errorf("the session's branch is %s, want autocoder/main", branch)
	}
	list := sessionsJSON(t, g.Dir)
	if len(list) != 1 || list[0]["state"] != "running" || list[0]["branch"] != branch || list[0]["path"] != path {
		t.Fatalf("sessions while mcp --worktree runs: %v", list)
	}
	if !strings.Contains(g.Git("worktree", "list"), path) {
		t.Errorf("the session's folder %s is not a worktree of the repository", path)
	}
	g.AssertUnchanged(withRefs(before, g))
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("mcp --worktree: %v", err)
	}
	g.AssertUnchanged(before)
	if list := sessionsJSON(t, g.Dir); len(list) != 0 {
		t.Errorf("a finished session is still listed: %v", list)
	}

	cmd, stdin, branch, path = start()
	must(t, cmd.Process.Kill())
	cmd.Wait()
	stdin.Close()
	list = sessionsJSON(t, g.Dir)
	if len(list) != 1 || list[0]["state"] != "kept" || list[0]["branch"] != branch {
		t.Fatalf("sessions after its command was killed: %v", list)
	}
	out, err := exec.Command("autocoder", "-C", g.Dir, "sessions").Output()
	if err != nil || !strings.Contains(string(out), "kept") || !strings.Contains(string(out), path) {
		t.Errorf("autocoder sessions: %v\n%s", err, out)
	}
	g.Git("worktree", "remove", path)
	g.Git("branch", "-D", branch)
	g.Fsck()
}

// TestLogShowUndoOnASessionsBranch: from the user's checkout (on main),
// log, show, undo and redo --branch work on a session's branch, checked
// out nowhere (the ref alone moves) or in another worktree (undo moves it
// there, with its files); the user's checkout is never touched, and a
// --branch that cannot be used changes nothing.
func TestLogShowUndoOnASessionsBranch(t *testing.T) {
	t.Parallel()
	g := crashRepo(t)
	resp := filepath.Join(t.TempDir(), "two.md")
	must(t, os.WriteFile(resp, []byte("~~~~~act\nwrite_file x.txt\n~~~~~\n~~~~~text\nx\n~~~~~\n"+
		"~~~~~act\nwrite_file y.txt\n~~~~~\n~~~~~text\ny\n~~~~~\n"), 0o644))
	if out, err := autocoder(t, g.Dir, nil, "apply", "--worktree", resp); err != nil {
		t.Fatalf("apply --worktree: %v\n%s", err, out)
	}
	before := userCheckout(t, g)
	tip := func() string { return strings.TrimSpace(g.Git("rev-parse", "autocoder/main")) }
	top := tip()

	for _, name := range []string{"autocoder/main", "main"} {
		out, err := autocoder(t, g.Dir, nil, "log", "--branch", name)
		if err != nil || !strings.Contains(out, "work branch autocoder/main: 2 step(s)") {
			t.Errorf("log --branch %s: %v\n%s", name, err, out)
		}
	}
	if out, err := autocoder(t, g.Dir, nil, "show", "--branch", "main"); err != nil || !strings.Contains(out, "y.txt") {
		t.Errorf("show --branch main: %v\n%s", err, out)
	}

	full := g.Snapshot()
	for _, args := range [][]string{{"undo", "--branch", "nope"}, {"undo", "5", "--branch", "main"}, {"log", "--branch", "no such"}} {
		if out, err := autocoder(t, g.Dir, nil, args...); err == nil {
			t.Errorf("%v succeeded:\n%s", args, out)
		}
		g.AssertUnchanged(full)
	}

	if out, err := autocoder(t, g.Dir, nil, "undo", "--branch", "main"); err != nil || !strings.Contains(out, "axon-2") {
		t.Fatalf("undo --branch main: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(g.Git("rev-parse", top+"~1")); tip() != got {
		t.Errorf("undo --branch moved autocoder/main to %s, want %s", tip(), got)
	}
	g.AssertUnchanged(withRefs(before, g))
	if out, err := autocoder(t, g.Dir, nil, "redo", "--branch", "main"); err != nil || tip() != top {
		t.Fatalf("redo --branch main: %v (tip %s, want %s)\n%s", err, tip(), top, out)
	}
	g.AssertUnchanged(withRefs(before, g))

	// Checked out in another worktree: undone there, its files too.
	other := filepath.Join(t.TempDir(), "other")
	g.Git("worktree", "add", "-q", other, "autocoder/main")
	if out, err := autocoder(t, g.Dir, nil, "undo", "--branch", "main"); err != nil {
		t.Fatalf("undo --branch of a branch checked out elsewhere: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(other, "y.txt")); !os.IsNotExist(err) {
		t.Errorf("the undone step's file is still in the worktree that has the branch: %v", err)
	}
	if st := gitStatus(t, other); st != "" {
		t.Errorf("git status in the other worktree after undo:\n%s", st)
	}
	g.AssertUnchanged(withRefs(before, g))
	g.Fsck()
}

func gitStatus(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=all").CombinedOutput()
	if err != nil {
		t.Fatalf("git status: %v\n%s", err, out)
	}
	return string(out)
}

// TestApplyWorktreeKeptWhenGitWillNotRemoveIt: a session whose worktree
// git refuses to remove (here locked with git worktree lock, as a user
// keeps one to look at) is kept, and the command says where and how to
// remove it; autocoder sessions lists it as kept, with its branch.
func TestApplyWorktreeKeptWhenGitWillNotRemoveIt(t *testing.T) {
	t.Parallel()
	g := crashRepo(t)
	before := userCheckout(t, g)
	resp := filepath.Join(t.TempDir(), "keep.md")
	must(t, os.WriteFile(resp, []byte("#####--\n"+`{"metadata": {"step_id": "k1", "reason": "write k"}, "type": "operate",`+
		` "file_operations": [{"action_type": "create_file", "path": "k.txt", "file_content": "k\n"}],`+
		` "program_operations": [{"name": "lock", "command": "git worktree lock --reason review .", "set_timeout": 60}]}`+"\n--#####\n"), 0o644))
	out, err := autocoder(t, g.Dir, nil, "apply", "--worktree", "--allow-programs", resp)
	if err != nil {
		t.Fatalf("apply --worktree: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`autocoder: session kept in (\S+) on autocoder/main: `).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "git worktree remove --force "+m[1]) {
		t.Fatalf("the kept session is not named with how to remove it:\n%s", out)
	}
	list := sessionsJSON(t, g.Dir)
	if len(list) != 1 || list[0]["state"] != "kept" || list[0]["branch"] != "autocoder/main" || list[0]["path"] != m[1] {
		t.Fatalf("sessions: %v", list)
	}
	if st := gitStatus(t, m[1]); st != "" {
		t.Errorf("the kept session's worktree is not clean:\n%s", st)
	}
	g.AssertUnchanged(withRefs(before, g))
	g.Fsck()
}
