package txn_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// A session's call that fails at any point, those after its ref moved
// included, on a split index whose every write makes a new shared index
// (splitIndex.maxPercentChange=0) and expires the others at once
// (sharedIndexExpire=now), leaves the session able to go on: the user's
// git add between the calls lands, the next call of the same engine
// commits, and git reads the index with the user's staged work in it.
func TestASessionGoesOnAfterAFailureAtEveryPointOnASplitIndex(t *testing.T) {
	gittest.Isolate(t)
	for n := 1; ; n++ {
		if n > 100 {
			t.Fatal("the call never got past its last failure point")
		}
		t.Setenv("AUTOCODER_TEST_FAIL_AT", "")
		g := gittest.NewWithCommit(t, map[string]string{"d/a.txt": "a\n", "d/s.txt": "s\n", "u.txt": "u\n", "w.txt": "w\n"})
		g.Git("config", "splitIndex.maxPercentChange", "0")
		g.Git("config", "splitIndex.sharedIndexExpire", "now")
		g.Write("d/s.txt", "staged\n")
		g.Write("u.txt", "staged too\n")
		g.Git("add", "d/s.txt", "u.txt")
		opts := txn.Options{SplitIndex: true}
		e0 := open(t, g.Dir, opts)
		mustApply(t, e0, mkStep("s1", write("d/a.txt", "one\n")))
		if err := e0.Close(); err != nil {
			t.Fatal(err)
		}
		t.Setenv("AUTOCODER_TEST_FAIL_AT", fmt.Sprint(n))
		e := open(t, g.Dir, opts)
		r := e.Apply(context.Background(), mkStep("s2", write("d/a.txt", "two\n"), write("d/n.txt", "new\n")))
		if err := e.Release(); err != nil {
			t.Fatalf("point %d: release: %v", n, err)
		}
		failed := r.Status == step.StatusFailed
		if failed && !strings.Contains(r.Error, "injected") {
			t.Fatalf("point %d: %s", n, r.Error)
		}
		// The user stages another file between the calls.
		g.Write("w.txt", "staged between\n")
		g.Git("add", "w.txt")
		if err := e.Acquire(context.Background(), time.Minute); err != nil {
			t.Fatalf("point %d: acquire: %v", n, err)
		}
		mustApply(t, e, mkStep("s3", write("d/a.txt", "three\n"), write("d/m.txt", "more\n")))
		if err := e.Close(); err != nil {
			t.Fatalf("point %d: close: %v", n, err)
		}
		if got := g.Git("--no-optional-locks", "status", "--porcelain"); got != "M  d/s.txt\nM  u.txt\nM  w.txt\n" {
			t.Fatalf("point %d: git status:\n%s", n, got)
		}
		g.Fsck()
		want := "d/a.txt\nd/m.txt\nd/s.txt\n" // the failed call's d/n.txt is gone
		if !failed {
			want = "d/a.txt\nd/m.txt\nd/n.txt\nd/s.txt\n"
		}
		if got := g.Git("ls-tree", "-r", "--name-only", "HEAD", "d/"); got != want {
			t.Fatalf("point %d: HEAD's tree:\n%s", n, got)
		}
		if got := g.Git("ls-files", "d/"); got != want {
			t.Fatalf("point %d: the index's entries:\n%s", n, got)
		}
		if !failed {
			if n < 6 {
				t.Fatalf("point %d: no failure injected", n)
			}
			break
		}
	}
}
