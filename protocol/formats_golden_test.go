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

// TestFormatsGolden applies every case of testdata/formats/<format>/ (the
// edit formats of FORMATS.md): a txtar archive whose comment says what must
// happen, with the files before (before/…), the model's answer (answer.md)
// and the files after (after/…, the whole worktree). The comment's first
// line is one of
//
//	want: applied [N]        every step applied or unchanged (N commits)
//	want: refuse CLASS REASON [TEXT]  a step fails so (REASON may be -),
//	                         its error holding TEXT, and the worktree is
//	                         after/ (before/ and nothing changed when there
//	                         is none)
//	want: unreadable [TEXT]  a block cannot be read (an error holding
//	                         TEXT); nothing changes
//
// and the rest names where the case comes from (a peer's test, a real
// transcript), with these lines where a case needs them:
//
//	exec: PATH     after the answer, git records PATH as executable (100755)
//	atomic: true   the answer is applied with --atomic
//	format: NAME   every block read is in that format (by default, in
//	               apply_patch/ and udiff/, the folder's; the other folders
//	               hold mixed answers and answers with no block)
//
// txtar holds no CR and always a final newline: in before/, after/ and the
// answer, <CR> stands for a CR and a final <NOEOL> for no final newline.
// Every case runs the real reader and engine on a git repository and is
// checked with git (status, fsck, one commit per step that changed files);
// its feedback is golden (<case>.feedback). An applied answer is applied a
// second time and must change nothing then: no commit, the same files.
func TestFormatsGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/formats/*/*.txtar")
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
			fb := runFormatCase(t, name, ar)
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

// folderFormats names the format every block of a folder's cases is in.
var folderFormats = map[string]string{"apply_patch": "apply_patch", "udiff": "udiff"}

// runFormatCase runs one case and returns the feedback to its first run.
func runFormatCase(t *testing.T, name string, ar *txtar.Archive) []byte {
	want := strings.Fields(strings.TrimPrefix(strings.SplitN(string(ar.Comment), "\n", 2)[0], "want:"))
	if len(want) == 0 {
		t.Fatal("the comment's first line must be want: …")
		return nil
	}
	// The error text a refusal must hold: the words after the class and
	// reason (after "unreadable" itself).
	text := ""
	switch {
	case want[0] == "refuse" && len(want) > 3:
		text = strings.Join(want[3:], " ")
	case want[0] == "unreadable" && len(want) > 1:
		text = strings.Join(want[1:], " ")
	}
	format := folderFormats[filepath.Base(filepath.Dir(name))]
	var exec []string
	atomic := false
	for _, l := range strings.Split(string(ar.Comment), "\n")[1:] {
		k, v, _ := strings.Cut(l, ":")
		v = strings.TrimSpace(v)
		switch k {
		case "exec":
			exec = append(exec, v)
		case "atomic":
			atomic = v == "true"
		case "format":
			format = v
		}
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
	if len(items) == 0 && format != "" {
		t.Fatal("no block read")
	}
	for _, it := range items {
		d := ""
		if it.Step != nil {
			d = it.Step.Dialect
		} else {
			d = it.Err.Dialect
		}
		if format != "" && d != format {
			t.Errorf("a block was read as %s, want %s", d, format)
		}
	}
	results := e.Run(context.Background(), items, txn.RunOptions{Atomic: atomic})
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
		n := strings.Count(g.Git("log", "--format=%H", "main..HEAD"), "\n")
		if len(want) > 1 && fmt.Sprint(n) != want[1] {
			t.Errorf("%d commits, want %s:\n%s", n, want[1], describe())
		}
		commits := 0
		for _, r := range results {
			if r.Commit != "" {
				commits++
			}
		}
		if n != commits {
			t.Errorf("%d commits, want one per step that changed files (%d):\n%s", n, commits, describe())
		}
		for _, p := range exec {
			if m := g.Git("ls-files", "-s", "--", p); !strings.HasPrefix(m, "100755 ") {
				t.Errorf("%s is not executable in git: %s", p, m)
			}
		}
		g.AssertClean()
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
		if !strings.Contains(failed.Error, text) {
			t.Errorf("the refusal %q does not say %q", failed.Error, text)
		}
		if !hasAfter {
			unchanged(t, g)
		}
	case "unreadable":
		bad := false
		for _, it := range items {
			bad = bad || it.Err != nil && strings.Contains(it.Err.Error(), text)
		}
		if !bad {
			t.Fatalf("no block unreadable with an error holding %q:\n%s", text, describe())
		}
		if !hasAfter {
			g.AssertUnchanged(snap)
			unchanged(t, g)
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
		if r.Status != step.StatusUnchanged && r.Status != step.StatusRead && !(r.Reason == step.ReasonNoMatch && deletes(r.Step)) &&
			!(r.Reason == step.ReasonNotFound && removes(r.Step)) {
			t.Errorf("applied again: step %s %s: %s", r.StepID, r.Status, r.Error)
		}
	}
	if g.Git("rev-parse", "HEAD") != head {
		t.Errorf("applied again: a new commit")
	}
	checkTree(t, g.Dir, after)
	return fb
}

// unchanged checks that a refused answer changed nothing git shows: no
// commit beyond main on any branch, a clean status.
func unchanged(t *testing.T, g *gittest.Repo) {
	t.Helper()
	if out := strings.TrimSpace(g.Git("rev-list", "--count", "--all", "^main")); out != "0" {
		t.Errorf("%s commits beyond main", out)
	}
	g.AssertClean()
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

// removes reports a step that deletes or moves a file: once it is applied
// the file is gone, so a second application finds no file and fails,
// changing nothing.
func removes(s *step.Step) bool {
	if s == nil {
		return false
	}
	for _, op := range s.Ops {
		if op.Kind == step.OpDelete || op.Kind == step.OpMove {
			return true
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
