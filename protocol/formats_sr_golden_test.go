package protocol_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/internal/golden"
	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
	"github.com/rogpeppe/go-internal/txtar"
)

// TestFormatsGolden applies every case of testdata/formats: a txtar archive
// whose comment says what must happen, with the files before (before/…),
// the model's answer (answer.md) and the files after (after/…, the whole
// worktree). The comment's first line is one of
//
//	want: applied N          every step applied or unchanged, N commits
//	want: refuse CLASS REASON  a step fails so (REASON may be -), and the
//	                         worktree is after/ (before/ when there is none)
//	want: unreadable         a block cannot be read; nothing changes
//
// and the rest names where the case comes from (a peer's test, a real
// transcript). An applied answer is applied a second time and must change
// nothing then: no commit, the same files.
func TestFormatsGolden(t *testing.T) {
	// The apply_patch and udiff cases are TestFormatGolden's (their own
	// header lines); this harness reads the others.
	all, _ := filepath.Glob("testdata/formats/*/*.txtar")
	var files []string
	for _, f := range all {
		if d := filepath.Base(filepath.Dir(f)); d != "apply_patch" && d != "udiff" {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Fatal("no cases in testdata/formats")
	}
	for _, name := range files {
		t.Run(strings.TrimSuffix(strings.TrimPrefix(name, "testdata/formats/"), ".txtar"), func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(name)
			if err != nil {
				t.Fatal(err)
			}
			fb := runFormatCase(t, ar)
			// The answer to the model, golden (commit ids vary).
			fb = commitID.ReplaceAllFunc(fb, func(id []byte) []byte {
				if !strings.ContainsAny(string(id), "0123456789") {
					return id // a word, not an id
				}
				return []byte("<commit>")
			})
			golden.Check(t, strings.TrimSuffix(name, ".txtar")+".feedback", fb)
		})
	}
}

// commitID is a commit id, short or whole, as the feedback shows it.
var commitID = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)

// runFormatCase runs one case and returns the feedback to its first run.
func runFormatCase(t *testing.T, ar *txtar.Archive) []byte {
	want := strings.Fields(strings.TrimPrefix(strings.SplitN(string(ar.Comment), "\n", 2)[0], "want:"))
	if len(want) == 0 {
		t.Fatal("the comment's first line must be want: …")
		return nil
	}
	before, after := map[string]string{}, map[string]string{}
	var answer []byte
	hasAfter := false
	for _, f := range ar.Files {
		switch {
		case f.Name == "answer.md":
			answer = f.Data
		case strings.HasPrefix(f.Name, "before/"):
			before[strings.TrimPrefix(f.Name, "before/")] = string(f.Data)
		case strings.HasPrefix(f.Name, "after/"):
			after[strings.TrimPrefix(f.Name, "after/")] = string(f.Data)
			hasAfter = true
		}
	}
	// txtar cannot hold CR or a missing final newline: <CR> and <NOEOL>
	// stand for them.
	unescape := func(m map[string]string) {
		for k, v := range m {
			v = strings.ReplaceAll(v, "<CR>", "\r")
			v = strings.TrimSuffix(v, "<NOEOL>\n")
			m[k] = v
		}
	}
	unescape(before)
	unescape(after)
	m := map[string]string{"": string(answer)}
	unescape(m)
	answer = []byte(m[""])
	if len(before) == 0 {
		before["README"] = "a repository\n"
	}
	if !hasAfter {
		after = before
	}
	g := gittest.NewWithCommit(t, before)
	repo, err := gitops.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := txn.Open(context.Background(), repo, txn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	snap := g.Snapshot()
	items := protocol.Parse(answer)
	results := e.Run(context.Background(), items, txn.RunOptions{})
	describe := func() string {
		var b strings.Builder
		for _, r := range results {
			fmt.Fprintf(&b, "  %s %s %s %s: %s (hint: %s)\n", r.StepID, r.Status, r.Class, r.Reason, r.Error, r.Hint)
			if r.ParseErr != nil {
				fmt.Fprintf(&b, "  parse error: %v\n", r.ParseErr)
			}
		}
		return b.String()
	}
	switch want[0] {
	case "applied":
		for _, r := range results {
			if r.Status != step.StatusApplied && r.Status != step.StatusUnchanged && r.Status != step.StatusRead {
				t.Fatalf("not applied:\n%s", describe())
			}
		}
		if n := strings.Count(g.Git("log", "--format=%H", "main..HEAD"), "\n"); len(want) > 1 && fmt.Sprint(n) != want[1] {
			t.Errorf("%d commits, want %s:\n%s", n, want[1], describe())
		}
		g.Fsck()
	case "refuse":
		var failed *step.Result
		for i := range results {
			if results[i].Status == step.StatusFailed {
				failed = &results[i]
				break
			}
		}
		if failed == nil || failed.Class.String() != want[1] || (len(want) > 2 && want[2] != "-" && failed.Reason != want[2]) {
			t.Fatalf("want a step refused as %v:\n%s", want[1:], describe())
		}
		if failed.Error == "" && failed.ParseErr == nil {
			t.Errorf("the refusal says nothing")
		}
	case "unreadable":
		bad := false
		for _, it := range items {
			bad = bad || it.Err != nil
		}
		if !bad {
			t.Fatalf("every block was read:\n%s", describe())
		}
		if !hasAfter {
			g.AssertUnchanged(snap)
		}
	default:
		t.Fatalf("unknown want %q", want[0])
		return nil
	}
	fb := protocol.Feedback(results)
	if len(fb) == 0 && len(results) > 0 {
		t.Errorf("empty feedback")
	}
	fb = []byte(strings.ReplaceAll(string(fb), g.Dir, "<repo>"))
	checkTree(t, g.Dir, after)
	if want[0] != "applied" {
		return fb
	}
	// The same answer again changes nothing.
	head := g.Git("rev-parse", "HEAD")
	again := e.Run(context.Background(), protocol.Parse(answer), txn.RunOptions{})
	for _, r := range again {
		if r.Status != step.StatusUnchanged && r.Status != step.StatusRead && !(r.Reason == step.ReasonNoMatch && deletes(r.Step)) {
			t.Errorf("applied again: step %s %s: %s", r.StepID, r.Status, r.Error)
		}
	}
	if g.Git("rev-parse", "HEAD") != head {
		t.Errorf("applied again: a new commit")
	}
	checkTree(t, g.Dir, after)
	return fb
}

// deletes reports a step with an edit whose new text is empty: once it is
// applied, nothing in the file shows it was (its old text is gone and it
// left no new text), so a second application finds no old text and fails,
// changing nothing.
func deletes(s *step.Step) bool {
	if s == nil {
		return false
	}
	for _, op := range s.Ops {
		for _, e := range op.Edits {
			if e.New == "" {
				return true
			}
		}
	}
	return false
}

// checkTree compares the worktree's files with want.
func checkTree(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		b, _ := os.ReadFile(p)
		got[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	var names []string
	for k := range got {
		names = append(names, k)
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		g, ok1 := got[k]
		w, ok2 := want[k]
		switch {
		case !ok1:
			t.Errorf("%s is missing", k)
		case !ok2:
			t.Errorf("%s should not be there: %q", k, g)
		case g != w:
			t.Errorf("%s = %q, want %q", k, g, w)
		}
	}
}
