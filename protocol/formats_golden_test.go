package protocol

import (
	"bytes"
	"context"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/autocoder/autocoder/gitops"
	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

// The golden cases of the edit formats (FORMATS.md): each is a txtar archive
// under testdata/formats/<format>/ holding the repository before (files
// before/PATH), the model's answer (answer.md) and either the repository
// after (files after/PATH: every file, nothing else) or, in the comment, a
// line "refuse: CLASS [TEXT]": some block fails with that class (no_block
// for a block that cannot be read) and an error holding TEXT, and nothing
// changes. Other comment lines:
//
//	crlf: PATH     the file is written with "\r\n" line ends, before and after
//	nonl: PATH     the file has no final newline, before and after (before/PATH
//	               or after/PATH: on that side only)
//	exec: PATH     after the answer, git records PATH as executable (100755)
//	atomic: true   the answer is applied with --atomic
//	format: NAME   every step read is in that format (the archive's folder by default)
//
// Every case is applied with the real reader and engine on a git
// repository, checked with git (status, fsck, one commit per step that
// changed files), then applied a second time: the second time changes
// nothing. The source of each case (a peer's test it was ported from, or
// what it demonstrates) is the first line of its comment.
func TestFormatGolden(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/formats/*")
	if len(dirs) == 0 {
		t.Fatal("no golden cases under testdata/formats")
	}
	for _, dir := range dirs {
		if d := filepath.Base(dir); d != "apply_patch" && d != "udiff" {
			continue // TestFormatsGolden's cases (formats_sr_golden_test.go)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.txtar"))
		for _, f := range files {
			name := filepath.Base(dir) + "/" + strings.TrimSuffix(filepath.Base(f), ".txtar")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				runGolden(t, f, filepath.Base(dir))
			})
		}
	}
}

type goldenCase struct {
	before, after map[string]string
	answer        []byte
	refuse        step.Class
	refuseText    string
	refuses       bool
	atomic        bool
	format        string
	exec          []string
}

func readGolden(t *testing.T, path, format string) goldenCase {
	a, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := goldenCase{before: map[string]string{}, format: format}
	var crlf, nonl []string
	for _, l := range strings.Split(string(a.Comment), "\n") {
		k, v, ok := strings.Cut(l, ":")
		v = strings.TrimSpace(v)
		if !ok {
			continue
		}
		switch k {
		case "refuse":
			c.refuses = true
			cls, text, _ := strings.Cut(v, " ")
			c.refuseText = text
			found := false
			for x := step.ClassInternal; x <= step.ClassProgramFailed; x++ {
				if x.String() == cls {
					c.refuse, found = x, true
				}
			}
			if !found {
				t.Fatalf("unknown class %q", cls)
			}
		case "crlf":
			crlf = append(crlf, v)
		case "nonl":
			nonl = append(nonl, v)
		case "exec":
			c.exec = append(c.exec, v)
		case "atomic":
			c.atomic = v == "true"
		case "format":
			c.format = v
		}
	}
	for _, f := range a.Files {
		data := string(f.Data)
		switch {
		case f.Name == "answer.md":
			c.answer = f.Data
		case strings.HasPrefix(f.Name, "before/"):
			c.before[strings.TrimPrefix(f.Name, "before/")] = data
		case strings.HasPrefix(f.Name, "after/"):
			if c.after == nil {
				c.after = map[string]string{}
			}
			c.after[strings.TrimPrefix(f.Name, "after/")] = data
		default:
			t.Fatalf("unknown file %q", f.Name)
		}
	}
	for _, p := range nonl {
		sides := []map[string]string{c.before, c.after}
		if q, ok := strings.CutPrefix(p, "before/"); ok {
			p, sides = q, sides[:1]
		} else if q, ok := strings.CutPrefix(p, "after/"); ok {
			p, sides = q, sides[1:]
		}
		for _, m := range sides {
			if s, ok := m[p]; ok {
				m[p] = strings.TrimSuffix(s, "\n")
			}
		}
	}
	for _, p := range crlf {
		for _, m := range []map[string]string{c.before, c.after} {
			if s, ok := m[p]; ok {
				m[p] = strings.ReplaceAll(s, "\n", "\r\n")
			}
		}
	}
	if c.answer == nil || (c.after == nil) == !c.refuses {
		t.Fatal("a case needs answer.md and either after/ files or a refuse: line")
	}
	return c
}

func runGolden(t *testing.T, path, format string) {
	c := readGolden(t, path, format)
	g := gittest.NewWithCommit(t, c.before)
	items := Parse(c.answer)
	if len(items) == 0 {
		t.Fatal("no block read")
	}
	for _, it := range items {
		d := ""
		if it.Step != nil {
			d = it.Step.Dialect
		} else {
			d = it.Err.Dialect
		}
		if d != c.format {
			t.Errorf("a block was read as %s, want %s", d, c.format)
		}
	}
	run := func() []step.Result {
		repo, err := gitops.Open(g.Dir)
		if err != nil {
			t.Fatal(err)
		}
		e, err := txn.Open(context.Background(), repo, txn.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		return e.Run(context.Background(), Parse(c.answer), txn.RunOptions{Atomic: c.atomic})
	}
	if c.refuses {
		var rs []step.Result
		for _, it := range items {
			if it.Err != nil {
				rs = append(rs, step.Result{ParseErr: it.Err, Status: step.StatusFailed, Error: it.Err.Error(), Class: step.ClassNoBlock})
			}
		}
		if len(rs) == 0 {
			rs = run()
		}
		ok := false
		for _, r := range rs {
			if r.Status == step.StatusFailed && r.Class == c.refuse && strings.Contains(r.Error, c.refuseText) {
				ok = true
			}
		}
		if !ok {
			t.Fatalf("no %s failure holding %q:\n%s", c.refuse, c.refuseText, describe(rs))
		}
		if fb := Feedback(rs); len(fb) == 0 {
			t.Error("no feedback for a refusal")
		}
		// Nothing changed: not a file, not a branch that names a commit
		// beyond main.
		if out := g.Git("rev-list", "--count", "--all", "^main"); strings.TrimSpace(out) != "0" {
			t.Errorf("%s commits beyond main", strings.TrimSpace(out))
		}
		if s := g.Status(); s != "" {
			t.Errorf("git status: %s", s)
		}
		for p, want := range c.before {
			if got := string(g.Bytes(p)); got != want {
				t.Errorf("%s changed: %q", p, got)
			}
		}
		return
	}
	rs := run()
	commits := 0
	for _, r := range rs {
		if r.Status != step.StatusApplied && r.Status != step.StatusUnchanged {
			t.Fatalf("step %s: %s: %s (hint: %s)", r.StepID, r.Status, r.Error, r.Hint)
		}
		if r.Commit != "" {
			commits++
		}
	}
	checkTree(t, g, c.after)
	for _, p := range c.exec {
		if m := g.Git("ls-files", "-s", "--", p); !strings.HasPrefix(m, "100755 ") {
			t.Errorf("%s is not executable in git: %s", p, m)
		}
	}
	if got := strings.TrimSpace(g.Git("rev-list", "--count", "main..HEAD")); got != strconv.Itoa(commits) {
		t.Errorf("%s commits, want one per step that changed files (%d)", got, commits)
	}
	g.AssertClean()
	g.Fsck()
	if fb := Feedback(rs); len(fb) == 0 {
		t.Error("no feedback")
	}
	// The same answer again changes nothing.
	head := g.Git("rev-parse", "HEAD")
	for _, r := range run() {
		if r.Status == step.StatusApplied && r.Commit != "" {
			t.Errorf("second run: step %s committed again", r.StepID)
		}
	}
	if g.Git("rev-parse", "HEAD") != head {
		t.Error("the second run moved HEAD")
	}
	checkTree(t, g, c.after)
}

// checkTree compares the tracked files with want, byte for byte.
func checkTree(t *testing.T, g *gittest.Repo, want map[string]string) {
	t.Helper()
	got := strings.Split(strings.TrimSuffix(g.Git("-c", "core.quotePath=false", "ls-files"), "\n"), "\n")
	if len(got) == 1 && got[0] == "" {
		got = nil
	}
	var names []string
	for p := range want {
		names = append(names, p)
	}
	sort.Strings(names)
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("files: %v, want %v", got, names)
	}
	for _, p := range names {
		if b := g.Bytes(p); !bytes.Equal(b, []byte(want[p])) {
			t.Errorf("%s = %q, want %q", p, b, want[p])
		}
	}
}

func describe(rs []step.Result) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(string(r.Status) + " " + r.Class.String() + ": " + r.Error + "\n")
	}
	return b.String()
}
