package txn_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// An engine kept for a session releases the repository between calls: git
// and another autocoder work meanwhile, and what they change is seen by the
// next call (here a submodule the user adds).
func TestSessionReleasesTheRepositoryBetweenCalls(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	ctx := context.Background()
	mustApply(t, e, mkStep("s1", write("b", "b\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}

	// Between calls: another autocoder runs, and the user adds a gitlink.
	other := open(t, g.Dir, txn.Options{})
	mustApply(t, other, mkStep("other", write("c", "c\n")))
	head := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	g.Git("update-index", "--add", "--cacheinfo", "160000,"+head+",sub")
	os.Mkdir(filepath.Join(g.Dir, "sub"), 0o777)

	// The next call waits for the other autocoder, then sees the gitlink.
	txn.OnFirstBusy(t, func() { other.Close() })
	done := make(chan error, 1)
	go func() { done <- e.Acquire(ctx, 5*time.Second) }()
	if err := <-done; err != nil {
		t.Fatalf("Acquire while another autocoder works: %v, want it waited for", err)
	}
	before := g.Snapshot()
	if r := e.Apply(ctx, mkStep("sub", write("sub/x", "x\n"))); r.Status != step.StatusFailed || r.Class != step.ClassRefused {
		t.Fatalf("a write into a submodule added between calls: %s (%s)", r.Status, r.Error)
	}
	g.AssertUnchanged(before)
	mustApply(t, e, mkStep("s2", write("d", "d\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}

	// A lock held longer than the wait is a refusal naming the holder.
	other = open(t, g.Dir, txn.Options{})
	defer other.Close()
	var busy *txn.BusyError
	if err := e.Acquire(ctx, 200*time.Millisecond); err == nil || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("Acquire past the wait: %v, want a BusyError naming the holder", err)
	} else if _, ok := err.(*txn.BusyError); !ok {
		t.Fatalf("Acquire past the wait: %T, want %T", err, busy)
	}
	// What the user staged between the calls is still staged.
	if got := g.Git("status", "--porcelain"); got != "A  sub\n" {
		t.Fatalf("status:\n%s", got)
	}
	g.Fsck()
}

// A git gc between two calls packs the objects the session's first call
// wrote and removes the loose ones; the next call finds them in the new
// pack (go-git reads its list of packs once, so the store is reopened).
func TestSessionSurvivesGitGCBetweenCalls(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	ctx := context.Background()
	mustApply(t, e, mkStep("s1", write("b", "one\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	g.Git("gc", "-q", "--prune=now")
	if err := e.Acquire(ctx, time.Second); err != nil {
		t.Fatal(err)
	}
	mustApply(t, e, mkStep("s2", replace("b", "one", "two"), write("c", "c\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	g.AssertClean()
	g.Fsck()
}

// A git gc inside one engine's life (between two steps of one apply, with
// no Acquire between them) packs the objects the first step wrote, removes
// the loose ones and, through pack-refs --prune, the empty folder of the
// work branch's ref; the next step finds the objects in the new pack and
// recreates the folder for the ref's lock.
func TestGitGCBetweenStepsOfOneEngine(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	mustApply(t, e, mkStep("s1", write("b", "one\n"), write("d/e", "e\n")))
	g.Git("gc", "-q", "--prune=now")
	g.Git("pack-refs", "--all", "--prune")
	// Some git versions leave the emptied folder of the packed ref, some
	// remove it; remove it as they do, so that the next step finds it gone.
	os.Remove(filepath.Join(g.Dir, ".git", "refs", "heads", "autocoder"))
	if ents, _ := os.ReadDir(filepath.Join(g.Dir, ".git", "refs", "heads")); len(ents) != 0 {
		t.Fatalf("refs/heads/%s left after pack-refs: the test needs it gone", ents[0].Name())
	}
	if out := g.Git("count-objects", "-v"); !strings.Contains(out, "count: 0\n") {
		t.Fatalf("git gc left loose objects:\n%s", out)
	}
	mustApply(t, e, mkStep("s2", replace("b", "one", "two"), replace("d/e", "e", "f"), write("c", "c\n")))
	g.AssertClean()
	g.Fsck()
	if log := g.Git("log", "--format=%s"); !strings.Contains(log, "s2") || !strings.Contains(log, "s1") {
		t.Fatalf("git log after gc between steps:\n%s", log)
	}
	if b, _ := os.ReadFile(filepath.Join(g.Dir, "b")); string(b) != "two\n" {
		t.Fatalf("b = %q after s2", b)
	}
}

// A session's calls run no git command: the identity and the core
// configuration are read once, on the first call (a process start costs
// milliseconds, more than the rest of a call). git is replaced here, after
// the first call, by one that records each run and fails.
func TestSessionRunsNoGitPerCall(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in git is a shell script")
	}
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	e := open(t, g.Dir, txn.Options{SplitIndex: true})
	defer e.Close()
	ctx := context.Background()
	mustApply(t, e, mkStep("s1", write("a.txt", "one\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}

	bin := t.TempDir()
	ran := filepath.Join(bin, "ran")
	os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho \"git $*\" >> '"+ran+"'\nexit 1\n"), 0o755)
	path := os.Getenv("PATH")
	os.Setenv("PATH", bin+string(os.PathListSeparator)+path)
	for i, p := range []string{"a.txt", "d/b.txt", "a.txt"} {
		if err := e.Acquire(ctx, time.Second); err != nil {
			t.Fatal(err)
		}
		r := e.Apply(ctx, mkStep(fmt.Sprint("call", i), write(p, fmt.Sprint("call ", i, "\n"))))
		if err := e.Release(); err != nil || r.Status != step.StatusApplied {
			os.Setenv("PATH", path)
			t.Fatalf("call %d: %s %s %v", i, r.Status, r.Error, err)
		}
	}
	os.Setenv("PATH", path)
	if b, err := os.ReadFile(ran); err == nil {
		t.Errorf("a call ran git:\n%s", b)
	}
	if got := g.Git("status", "--porcelain"); got != "" {
		t.Errorf("status:\n%s", got)
	}
	g.Fsck()
}

// The journal, written at every step, is rewritten in the file the
// previous step left, not created anew: a new file costs 0.5-0.9 ms on the
// ext4 the benchmarks ran on, a rewritten one 20 µs. A session's call owes
// no index entries (it writes the index before its commit point), so the
// index debt file is never written at all.
func TestStepsReuseTheJournalFiles(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	e := open(t, g.Dir, txn.Options{SplitIndex: true})
	defer e.Close()
	ctx := context.Background()
	stat := func() (journal, debt os.FileInfo) {
		t.Helper()
		dir := filepath.Join(g.Dir, ".git", "autocoder")
		for _, f := range []string{"journal.json", "index-debt.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Fatalf("%s is still there after the call", f)
			}
		}
		journal, _ = os.Stat(filepath.Join(dir, "journal.json.tmp"))
		debt, _ = os.Stat(filepath.Join(dir, "index-debt.json.tmp"))
		return
	}
	var j os.FileInfo
	for i := range 3 {
		if err := e.Acquire(ctx, time.Second); err != nil {
			t.Fatal(err)
		}
		mustApply(t, e, mkStep(fmt.Sprint("s", i), write("a.txt", fmt.Sprint(i, "\n"))))
		if err := e.Release(); err != nil {
			t.Fatal(err)
		}
		j2, d2 := stat()
		if i > 0 && (j == nil || j2 == nil || !os.SameFile(j, j2)) {
			t.Fatalf("call %d wrote its journal into a new file", i)
		}
		if d2 != nil {
			t.Fatalf("call %d wrote an index debt file", i)
		}
		j = j2
	}
	if got := g.Git("status", "--porcelain"); got != "" {
		t.Errorf("status:\n%s", got)
	}
	g.Fsck()
}

// Between a session's calls the engine makes the files the next call will
// write under .git (gitops.Spares): the next call's commit object and its
// branch ref are files made before it started. Close leaves no spare.
func TestSessionMakesItsFilesAhead(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	e := open(t, g.Dir, txn.Options{SplitIndex: true})
	ctx := context.Background()
	mustApply(t, e, mkStep("s1", write("a.txt", "one\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	spareDir := filepath.Join(g.Dir, ".git", "autocoder", "spare")
	list := func() []os.FileInfo {
		var spares []os.FileInfo
		ents, _ := os.ReadDir(spareDir)
		for _, ent := range ents {
			if fi, err := ent.Info(); err == nil && !strings.Contains(ent.Name(), "gone") {
				spares = append(spares, fi)
			}
		}
		return spares
	}
	var spares []os.FileInfo
	deadline := time.Now().Add(10 * time.Second)
	for len(spares) < 10 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
		spares = list()
	}
	if len(spares) < 10 {
		t.Fatalf("%d spare files after the call, want the pool filled", len(spares))
	}
	if err := e.Acquire(ctx, time.Second); err != nil {
		t.Fatal(err)
	}
	// Acquire stops the filling (Spares.Stop waits for it): the files
	// there now are all the call can take. Listed before, a spare made
	// between the listing and Acquire made the test fail.
	spares = list()
	r := mustApply(t, e, mkStep("s2", write("d/b.txt", "two\n")))
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	ref := strings.TrimSpace(g.Git("symbolic-ref", "HEAD"))
	for _, f := range []string{
		filepath.Join(".git", "objects", r.Commit[:2], r.Commit[2:]),
		filepath.Join(".git", filepath.FromSlash(ref)),
	} {
		fi, err := os.Stat(filepath.Join(g.Dir, f))
		if err != nil {
			t.Fatal(err)
		}
		made := false
		for _, s := range spares {
			made = made || os.SameFile(fi, s)
		}
		if !made {
			t.Errorf("%s was made during the call, not ahead of it", f)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spareDir); err == nil {
		t.Error("spare files left after Close")
	}
	if got := g.Git("status", "--porcelain"); got != "" {
		t.Errorf("status:\n%s", got)
	}
	if got := g.MustRead("d/b.txt"); got != "two\n" {
		t.Errorf("d/b.txt: %q", got)
	}
	g.Fsck()
}

// Opening waits for another autocoder up to LockWait, and a cancelled
// context (Ctrl-C) ends the wait at once, with nothing taken.
func TestOpenWaitEndsWithItsContext(t *testing.T) {
	gittest.Isolate(t)
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	holder := open(t, g.Dir, txn.Options{})
	repo, err := gitops.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Cancelled once the wait has begun: a wait that ignored the context
	// would end after LockWait with a BusyError, not a CancelledError.
	txn.OnFirstBusy(t, cancel)
	start := time.Now()
	e, err := txn.Open(ctx, repo, txn.Options{LockWait: 20 * time.Second})
	var ce *txn.CancelledError
	if !errors.As(err, &ce) {
		if e != nil {
			e.Close()
		}
		t.Fatalf("after %s: %v, want the wait cancelled", time.Since(start), err)
	}
	holder.Close()
	g.AssertClean()
}
