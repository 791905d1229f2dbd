package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// crashPlan is a many-step response whose steps can all be re-applied: a
// re-sent write or edit of a step already there is reported unchanged.
const crashPlan = `~~~~~act
write_file
~~~~~
~~~~~path
src/new/one.txt
~~~~~
~~~~~text
one
~~~~~
~~~~~act
replace
~~~~~
~~~~~path
src/app.py
~~~~~
~~~~~python
def main():
    pass
~~~~~
~~~~~python
def main():
    print("step 2")
~~~~~
~~~~~act
write_file
~~~~~
~~~~~path
README.md
~~~~~
~~~~~markdown
# rewritten
~~~~~
~~~~~act
write_file
~~~~~
~~~~~path
src/new/two.txt
~~~~~
~~~~~text
two
~~~~~
~~~~~act
replace
~~~~~
~~~~~path
lib/util.py
~~~~~
~~~~~python
X = 1
~~~~~
~~~~~python
X = 2
~~~~~
~~~~~act
write_file
~~~~~
~~~~~path
deep/a/b/c/d.txt
~~~~~
~~~~~text
deep
~~~~~
`

// crashRepo makes the starting repository: committed files, and the
// user's own work (a modified file, a staged file, an untracked file) that
// no crash may touch.
func crashRepo(t *testing.T) *gittest.Repo { return crashRepoSplit(t, false) }

// crashRepoSplit is crashRepo; split makes the index split, as git's
// core.splitIndex does, with every change kept in the small index file.
func crashRepoSplit(t *testing.T, split bool) *gittest.Repo {
	g := gittest.NewWithCommit(t, map[string]string{
		"src/app.py": "def main():\n    pass\n", "lib/util.py": "X = 1\n", "README.md": "# readme\n",
		"user/dirty.txt": "committed\n", "user/staged.txt": "committed\n",
	})
	if split {
		g.Git("config", "core.splitIndex", "true")
		g.Git("config", "splitIndex.maxPercentChange", "100")
		g.Git("update-index", "--split-index")
	}
	g.Write("user/dirty.txt", "the user's unsaved work\n")
	g.Write("user/staged.txt", "the user's staged work\n")
	g.Git("add", "user/staged.txt")
	g.Write("user/untracked.txt", "untracked\n")
	return g
}

func autocoder(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("autocoder", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func killed(err error) bool {
	ee, ok := err.(*exec.ExitError)
	if !ok {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// TestCrashAtEveryPoint kills `autocoder apply` at each point of a six-step
// run in turn and checks that the next command (here: log) leaves a
// consistent repository: only complete steps on the branch, the worktree and
// index equal to its tip apart from the user's own work, which is untouched,
// no lock, journal or temporary file left, git fsck clean. Re-applying the
// response then completes it.
func TestCrashAtEveryPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("kills apply at each of its crash points: slow; runs without -short")
	}
	t.Parallel()
	crashEveryPoint(t, false)
}

// The same with the index split (autocoder splits an index of 10,000
// entries by itself, gitops.SplitFrom): recovery after a crash at any point
// reads and settles a split index, git status and fsck agree, and the
// re-apply completes.
func TestCrashAtEveryPointOfASplitIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("kills apply at each of its crash points: slow; runs without -short")
	}
	t.Parallel()
	crashEveryPoint(t, true)
}

// crashEveryPoint kills apply at every crash point in turn (crashRepoSplit
// says what split is).
func crashEveryPoint(t *testing.T, split bool) {
	want := referenceTrees(t)
	// Each point has a repository of its own: a batch of points runs in
	// parallel, batch after batch, until a run completes uncrashed (its
	// point is past the last one).
	var mu sync.Mutex
	var crashed, completed []int
	const batch = 8
	for first := 1; first < 200 && len(completed) == 0; first += batch {
		t.Run(fmt.Sprintf("points %d-%d", first, first+batch-1), func(t *testing.T) {
			for n := first; n < first+batch; n++ {
				t.Run(fmt.Sprint(n), func(t *testing.T) {
					t.Parallel()
					c := crashAt(t, n, want, split)
					mu.Lock()
					defer mu.Unlock()
					if c {
						crashed = append(crashed, n)
					} else {
						completed = append(completed, n)
					}
				})
			}
		})
		if t.Failed() {
			return
		}
	}
	if len(completed) == 0 {
		t.Fatal("the run never completed")
	}
	if len(crashed) < 20 {
		t.Fatalf("only %d crash points in a six-step run", len(crashed))
	}
	// The crash points are the first ones: no run completes before a later
	// point still crashes it.
	if slices.Max(crashed) > slices.Min(completed) {
		t.Fatalf("crashed at %v but completed at %v", crashed, completed)
	}
	t.Logf("crashed the run at %d points", len(crashed))
}

// crashAt kills apply at crash point n and checks that the next command
// (here: log) leaves a consistent repository and that re-applying the
// response completes it. It reports whether apply was killed: false when n
// is past the run's last point and apply completed.
func crashAt(t *testing.T, n int, want []string, split bool) bool {
	g := crashRepoSplit(t, split)
	plan := filepath.Join(t.TempDir(), "plan.md")
	os.WriteFile(plan, []byte(crashPlan), 0o666)
	userBefore := userState(g)
	out, err := autocoder(t, g.Dir, []string{fmt.Sprintf("AUTOCODER_TEST_CRASH_AT=%d", n)}, "apply", plan)
	if err == nil {
		return false
	}
	if !killed(err) {
		t.Fatalf("crash point %d: apply failed without being killed: %v\n%s", n, err, out)
	}
	out, err = autocoder(t, g.Dir, nil, "log")
	if err != nil && !strings.Contains(out, "not on a work branch") {
		t.Fatalf("crash point %d: the next command failed: %v\n%s", n, err, out)
	}
	checkConsistent(t, g, n, want, userBefore)
	// Re-applying finishes the job.
	if out, err := autocoder(t, g.Dir, nil, "apply", plan); err != nil {
		t.Fatalf("crash point %d: re-apply: %v\n%s", n, err, out)
	}
	if tree := strings.TrimSpace(g.Git("rev-parse", "HEAD^{tree}")); tree != want[len(want)-1] {
		t.Fatalf("crash point %d: after re-applying, the tree is %s, want %s", n, tree, want[len(want)-1])
	}
	checkConsistent(t, g, n, want, userBefore)
	return true
}

// TestFailureAtEveryPoint injects an error at each point of the run: the
// failing step is rolled back at once, the earlier steps stay.
func TestFailureAtEveryPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("fails apply at each of its failure points: slow; runs without -short")
	}
	t.Parallel()
	want := referenceTrees(t)
	for n := 1; n < 200; n++ {
		g := crashRepo(t)
		plan := filepath.Join(t.TempDir(), "plan.md")
		os.WriteFile(plan, []byte(crashPlan), 0o666)
		userBefore := userState(g)
		out, err := autocoder(t, g.Dir, []string{fmt.Sprintf("AUTOCODER_TEST_FAIL_AT=%d", n)}, "apply", plan)
		if err == nil {
			return
		}
		if !strings.Contains(out, "injected failure") {
			t.Fatalf("fail point %d: %v\n%s", n, err, out)
		}
		checkConsistent(t, g, n, want, userBefore)
	}
}

// referenceTrees applies the plan without a crash and returns the tree
// after each step (index 0: the starting tree).
func referenceTrees(t *testing.T) []string {
	g := crashRepo(t)
	plan := filepath.Join(t.TempDir(), "plan.md")
	os.WriteFile(plan, []byte(crashPlan), 0o666)
	if out, err := autocoder(t, g.Dir, nil, "apply", plan); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	var trees []string
	for i := 6; i >= 0; i-- {
		trees = append(trees, strings.TrimSpace(g.Git("rev-parse", fmt.Sprintf("HEAD~%d^{tree}", i))))
	}
	return trees
}

func userState(g *gittest.Repo) string {
	return g.MustRead("user/dirty.txt") + g.MustRead("user/staged.txt") + g.MustRead("user/untracked.txt") +
		g.Git("--no-optional-locks", "diff", "--cached", "--", "user") + g.Git("--no-optional-locks", "diff", "--", "user")
}

func checkConsistent(t *testing.T, g *gittest.Repo, n int, want []string, userBefore string) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("crash point %d: "+format, append([]any{n}, args...)...)
	}
	if got := g.Git("--no-optional-locks", "status", "--porcelain", "--untracked-files=all"); got != " M user/dirty.txt\nM  user/staged.txt\n?? user/untracked.txt\n" {
		fail("git status shows more than the user's own work:\n%s", got)
	}
	if got := userState(g); got != userBefore {
		fail("the user's work changed")
	}
	if out, err := g.GitErr("fsck", "--strict", "--no-progress", "--no-dangling"); err != nil || out != "" {
		fail("git fsck: %v\n%s", err, out)
	}
	head := strings.TrimSpace(g.Git("symbolic-ref", "HEAD"))
	tree := strings.TrimSpace(g.Git("rev-parse", "HEAD^{tree}"))
	switch head {
	case "refs/heads/main":
		if tree != want[0] {
			fail("on main, but main moved")
		}
		if _, err := g.GitErr("rev-parse", "--verify", "-q", "refs/heads/autocoder/main"); err == nil {
			fail("HEAD is on main but the work branch exists")
		}
	case "refs/heads/autocoder/main":
		count := strings.TrimSpace(g.Git("rev-list", "--count", "main..HEAD"))
		var steps int
		fmt.Sscan(count, &steps)
		if steps < 1 || steps > 6 || tree != want[steps] {
			fail("the branch has %d step(s) but its tree is not the reference tree after step %d", steps, steps)
		}
	default:
		fail("HEAD is on %s", head)
	}
	filepath.Walk(g.Dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		base := filepath.Base(p)
		if strings.HasSuffix(base, ".lock") || strings.HasPrefix(base, ".autocoder-tmp-") || base == "journal.json" || strings.HasPrefix(base, "own-") {
			fail("%s was left behind", p)
		}
		return nil
	})
}
