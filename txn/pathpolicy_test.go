package txn_test

// The one path policy (checks.Policy) as every op meets it: reads, listings,
// searches, diffs, writes and a program's working folder. Each refusal also
// asserts that the repository is unchanged byte for byte.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/autocoder/autocoder/step"
	"github.com/autocoder/autocoder/txn"
)

func readOp(kind step.OpKind, path string, o *step.ReadOptions) step.Op {
	return step.Op{Kind: kind, Path: path, Read: o}
}

// policyRepo is a repository with a tracked symlink to a secret outside it,
// a tracked link to a folder outside it, a denied .env and key.pem, a clone
// nested inside it and a linked worktree inside it.
func policyRepo(t *testing.T) (*gittest.Repo, string) {
	t.Helper()
	gittest.Isolate(t)
	outside := t.TempDir()
	if real, err := filepath.EvalSymlinks(outside); err == nil {
		outside = real
	}
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("TOPSECRET outside\n"), 0o644)
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "KEY here\n", "dir/b.txt": "KEY b\n", ".env": "KEY=1\n", "key.pem": "KEY pem\n"})
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(g.Dir, "link.txt"))
	os.Symlink(outside, filepath.Join(g.Dir, "outdir"))
	os.Symlink("dir", filepath.Join(g.Dir, "indir"))
	g.Git("add", "link.txt", "outdir", "indir")
	g.Git("commit", "-qm", "links")
	// A clone nested in the work tree (untracked) and a linked worktree.
	g.Git("clone", "-q", g.Dir, filepath.Join(g.Dir, "inner"))
	g.Git("worktree", "add", "-q", filepath.Join(g.Dir, "wt"), "-b", "wtb")
	os.WriteFile(filepath.Join(g.Dir, ".git", "info", "exclude"), []byte("inner/\nwt/\n"), 0o644)
	return g, outside
}

func denyEnvPem(rel string) (string, bool) {
	switch {
	case strings.HasSuffix(rel, ".env") || rel == ".env":
		return ".env", true
	case strings.HasSuffix(rel, ".pem"):
		return "*.pem", true
	}
	return "", false
}

func TestPolicyRootCanBeListedAndSearched(t *testing.T) {
	g, _ := policyRepo(t)
	e := open(t, g.Dir, txn.Options{Deny: denyEnvPem})
	for _, p := range []string{".", "./", g.Dir} {
		r := e.Apply(context.Background(), mkStep("ls", readOp(step.OpList, p, nil), readOp(step.OpSearch, p, &step.ReadOptions{Query: "KEY"})))
		if r.Status == step.StatusFailed {
			t.Fatalf("list and search of the root %q: %s", p, r.Error)
		}
		ls, found := r.Ops[0].Output, r.Ops[1].Output
		if !strings.Contains(ls, "a.txt\n") || !strings.Contains(ls, "dir/b.txt\n") || !strings.Contains(found, "a.txt:1:") {
			t.Errorf("root %q: listing %q search %q", p, ls, found)
		}
		// Denied files are neither listed nor searched; .git and the other
		// repositories' work trees are not entered.
		for _, out := range []string{ls, found} {
			for _, bad := range []string{".env", "key.pem", ".git/", "inner/a.txt", "wt/a.txt", "TOPSECRET"} {
				if strings.Contains(out, bad) {
					t.Errorf("root %q: output shows %s:\n%s", p, bad, out)
				}
			}
		}
	}
}

func TestPolicyReadsNeverFollowALinkOut(t *testing.T) {
	g, _ := policyRepo(t)
	e := open(t, g.Dir, txn.Options{Deny: denyEnvPem})
	before := g.Snapshot()
	for _, op := range []step.Op{
		readOp(step.OpRead, "link.txt", nil),
		readOp(step.OpRead, "outdir/secret.txt", nil),
		readOp(step.OpList, "outdir", nil),
		readOp(step.OpSearch, "outdir", &step.ReadOptions{Query: "TOPSECRET"}),
		readOp(step.OpSearch, "link.txt", &step.ReadOptions{Query: "TOPSECRET"}),
		{Kind: step.OpDiff, Path: "a.txt", To: "link.txt"},
		readOp(step.OpRead, ".env", nil),
		readOp(step.OpRead, "inner/a.txt", nil),
		readOp(step.OpRead, "wt/a.txt", nil),
		readOp(step.OpList, "inner", nil),
	} {
		r := e.Apply(context.Background(), mkStep("rd", op))
		if r.Class != step.ClassRefused || strings.Contains(r.Ops[0].Output, "TOPSECRET") || strings.Contains(r.Ops[0].Output, "KEY=1") {
			t.Errorf("%s %s: class %s output %q error %q; want refused (4), nothing shown", op.Kind, op.Path, r.Class, r.Ops[0].Output, r.Error)
		}
		g.AssertUnchanged(before)
	}
	// A search of the root does not follow the links either.
	r := e.Apply(context.Background(), mkStep("all", readOp(step.OpSearch, ".", &step.ReadOptions{Query: "TOPSECRET"})))
	if strings.Contains(r.Ops[0].Output, "TOPSECRET") {
		t.Errorf("search of the root followed a link out:\n%s", r.Ops[0].Output)
	}
	// A link that stays inside is read through.
	r = e.Apply(context.Background(), mkStep("in", readOp(step.OpRead, "indir/b.txt", nil)))
	if r.Status == step.StatusFailed || r.Ops[0].Output != "KEY b\n" {
		t.Errorf("read through a link inside the repository: %s %q", r.Error, r.Ops[0].Output)
	}
}

func TestPolicyProgramCwdStaysInside(t *testing.T) {
	g, _ := policyRepo(t)
	var ran []string
	e := open(t, g.Dir, txn.Options{Programs: recordPrograms{&ran}})
	before := g.Snapshot()
	for _, cwd := range []string{"outdir", "..", "inner", "wt", ".git", "$HOME", "~"} {
		r := e.Apply(context.Background(), &step.Step{ID: "p", Programs: []step.Program{{Command: "true", Cwd: cwd}}})
		if len(r.Programs) != 1 || r.Programs[0].Status != step.ProgramRefused {
			t.Errorf("cwd %q: %+v; want the program refused", cwd, r.Programs)
		}
		g.AssertUnchanged(before)
	}
	if len(ran) > 0 {
		t.Errorf("programs ran in %v", ran)
	}
	// The root and a folder inside are fine.
	for _, cwd := range []string{".", "dir", "indir"} {
		if r := e.Apply(context.Background(), &step.Step{ID: "ok", Programs: []step.Program{{Command: "true", Cwd: cwd}}}); r.Status == step.StatusFailed {
			t.Errorf("cwd %q: class %s (%s)", cwd, r.Class, r.Error)
		}
	}
	want := []string{g.Dir, filepath.Join(g.Dir, "dir"), filepath.Join(g.Dir, "dir")}
	if strings.Join(ran, "|") != strings.Join(want, "|") {
		t.Errorf("programs ran in %v, want %v", ran, want)
	}
}

type recordPrograms struct{ dirs *[]string }

func (r recordPrograms) Allowed(step.Program) (bool, string) { return true, "" }
func (r recordPrograms) Run(_ context.Context, dir string, p step.Program) step.ProgramResult {
	*r.dirs = append(*r.dirs, dir)
	return step.ProgramResult{Status: "success"}
}

func TestPolicyRefusesHostilePathSpellings(t *testing.T) {
	if testing.Short() {
		t.Skip("tries every hostile path spelling: slow; runs without -short")
	}
	g, _ := policyRepo(t)
	e := open(t, g.Dir, txn.Options{Deny: denyEnvPem})
	cases := map[string]string{
		"a\nb.txt":               "control character",
		"a\tb.txt":               "control character",
		"a\rb.txt":               "control character",
		"a\x1b[2Jb.txt":          "control character",
		"~/x.txt":                "home folder",
		"~":                      "home folder",
		"$HOME/x.txt":            "variable",
		"${HOME}/x.txt":          "variable",
		"C:/x.txt":               "drive letter",
		"c:x.txt":                "drive letter",
		`\\server\share\x.txt`:   `\`,
		`..\x.txt`:               `\`,
		`.git\hooks\pre-commit`:  `\`,
		`GIT~1\config`:           `\`,
		`src\main.go`:            `\`,
		"inner/new.txt":          "another repository",
		"wt/new.txt":             "another repository",
		"outdir/new.txt":         "symbolic link",
		"key.pem":                "deny",
		".GIT/config":            ".git",
		"dir/../../x.txt":        "leaves the repository",
		"\u202egnp.exe":          "control character",
		"a\u0085b":               "control character",
		"..":                     "leaves the repository",
		"./":                     "root",
		"link.txt/../../x.txt":   "leaves the repository",
		"dir/.Git/hooks/post-co": ".git",
	}
	for p, why := range cases {
		before := g.Snapshot()
		r := e.Apply(context.Background(), mkStep("bad", write(p, "x\n")))
		if r.Class != step.ClassRefused || !strings.Contains(r.Error, why) || r.Hint == "" {
			t.Errorf("%q: class %s error %q hint %q; want refused (4) saying %q, with a hint", p, r.Class, r.Error, r.Hint, why)
		}
		g.AssertUnchanged(before)
	}
	if out, err := g.GitErr("fsck", "--strict", "--no-dangling"); err != nil {
		t.Errorf("git fsck --strict: %v\n%s", err, out)
	}
}

func TestPolicySamePathTwiceInOneStep(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a": "a\n"})
	e := open(t, g.Dir, txn.Options{})
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("twice", write("x.txt", "one\n"), write("./x.txt", "two\n")))
	if r.Status != step.StatusFailed || !strings.Contains(r.Error, `"x.txt"`) || !strings.Contains(r.Error, `"./x.txt"`) {
		t.Errorf("status %s error %q; want failed, naming x.txt and ./x.txt", r.Status, r.Error)
	}
	g.AssertUnchanged(before)
}

func TestPolicyWriteOntoAFolderIsAFolder(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"dir/b.txt": "b\n"})
	e := open(t, g.Dir, txn.Options{})
	before := g.Snapshot()
	r := e.Apply(context.Background(), mkStep("onto", write("dir", "x\n")))
	if r.Class != step.ClassStepFailed || !strings.Contains(r.Error, "is a folder") || strings.Contains(r.Error, "uncommitted") {
		t.Errorf("class %s error %q; want exit 1, \"is a folder\"", r.Class, r.Error)
	}
	g.AssertUnchanged(before)
}
