package unidiff

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGolden holds the exact text of the hunks and headers that git apply
// and patch read: a new file is "-0,0", a deleted one "+0,0", a missing
// final newline is marked, and each kind of change has git's header.
func TestGolden(t *testing.T) {
	cases := []struct {
		name             string
		oldPath, newPath string
		old, new         string
		oldMode, newMode uint32
		want             string
	}{
		{"new file", "n.txt", "n.txt", "", "a\nb\n", 0, ModeFile,
			"diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"new one-line file", "n.txt", "n.txt", "", "a\n", 0, ModeExec,
			"diff --git a/n.txt b/n.txt\nnew file mode 100755\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+a\n"},
		{"new empty file", "e", "e", "", "", 0, ModeFile,
			"diff --git a/e b/e\nnew file mode 100644\n"},
		{"deleted file", "d.txt", "d.txt", "x\ny\nz\n", "", ModeFile, 0,
			"diff --git a/d.txt b/d.txt\ndeleted file mode 100644\n--- a/d.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-x\n-y\n-z\n"},
		{"change", "c.txt", "c.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n", ModeFile, ModeFile,
			"diff --git a/c.txt b/c.txt\n--- a/c.txt\n+++ b/c.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{"final newline removed", "f", "f", "a\nb\n", "a\nb", ModeFile, ModeFile,
			"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"},
		{"no final newline either side", "f", "f", "a\nb", "a\nc", ModeFile, ModeFile,
			"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"mode only", "x.sh", "x.sh", "echo\n", "echo\n", ModeFile, ModeExec,
			"diff --git a/x.sh b/x.sh\nold mode 100644\nnew mode 100755\n"},
		{"rename with change", "a.txt", "b.txt", "1\n2\n", "1\n3\n", ModeFile, ModeFile,
			"diff --git a/a.txt b/b.txt\nrename from a.txt\nrename to b.txt\n--- a/a.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n 1\n-2\n+3\n"},
		{"quoted name", "a\"b\n", "a\"b\n", "", "x\n", 0, ModeFile,
			"diff --git \"a/a\\\"b\\n\" \"b/a\\\"b\\n\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/a\\\"b\\n\"\n@@ -0,0 +1 @@\n+x\n"},
		{"binary", "bin", "bin", "a\x00", "b\x00", ModeFile, ModeFile,
			"diff --git a/bin b/bin\nBinary files a/bin and b/bin differ\n"},
		{"unchanged", "u", "u", "same\n", "same\n", ModeFile, ModeFile, ""},
	}
	for _, c := range cases {
		got := File(c.oldPath, c.newPath, []byte(c.old), []byte(c.new), c.oldMode, c.newMode)
		if got != c.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

// TestUnifiedContext holds the hunk layout of Unified for fs.diff's
// contextLines: edits closer than twice the context share a hunk.
func TestUnifiedContext(t *testing.T) {
	from := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	to := "1\nB\n3\n4\n5\n6\n7\n8\nI\n10\n"
	if got, want := Unified("a/f", "b/f", from, to, 1), "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n 1\n-2\n+B\n 3\n@@ -8,3 +8,3 @@\n 8\n-9\n+I\n 10\n"; got != want {
		t.Errorf("context 1:\ngot\n%s\nwant\n%s", got, want)
	}
	if got, want := Unified("a/f", "b/f", from, to, 0), "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-2\n+B\n@@ -9 +9 @@\n-9\n+I\n"; got != want {
		t.Errorf("context 0:\ngot\n%s\nwant\n%s", got, want)
	}
	if got, want := Unified("a/f", "b/f", from, to, 4), "--- a/f\n+++ b/f\n@@ -1,10 +1,10 @@\n 1\n-2\n+B\n 3\n 4\n 5\n 6\n 7\n 8\n-9\n+I\n 10\n"; got != want {
		t.Errorf("context 4:\ngot\n%s\nwant\n%s", got, want)
	}
}

// TestGitAndPatchAccept has git judge the patches: in a temporary
// repository, one patch that adds a file, deletes one, changes one, drops
// a final newline, adds one, changes a mode and renames a file passes
// git apply --check and patch -p1 --dry-run, and git apply gives exactly
// the new files.
func TestGitAndPatchAccept(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed to judge the patches")
	}
	type file struct {
		old, new         string
		oldMode, newMode uint32
	}
	files := map[string]file{
		"new.txt":         {"", "one\ntwo\n", 0, ModeFile},
		"new-nonl.txt":    {"", "no newline", 0, ModeFile},
		"empty-new":       {"", "", 0, ModeFile},
		"gone.txt":        {"bye\nnow\n", "", ModeFile, 0},
		"gone-nonl.txt":   {"bye", "", ModeFile, 0},
		"change.txt":      {"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "1\ntwo\n3\n4\n5\n6\n7\n8\n9\n10\neleven\n12\n", ModeFile, ModeFile},
		"drop-nl.txt":     {"a\nb\n", "a\nb", ModeFile, ModeFile},
		"add-nl.txt":      {"a\nb", "a\nb\n", ModeFile, ModeFile},
		"nonl-change.txt": {"a\nb", "a\nc", ModeFile, ModeFile},
		"run.sh":          {"echo hi\n", "echo hi\n", ModeFile, ModeExec},
		"sub/dir/x.go":    {"package x\n", "package x\n\nvar X = 1\n", ModeExec, ModeFile},
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	git("init", "-q")
	git("config", "core.fileMode", "true")
	write := func(name, data string, mode uint32) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		perm := os.FileMode(0o644)
		if mode == ModeExec {
			perm = 0o755
		}
		if err := os.WriteFile(p, []byte(data), perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, perm); err != nil {
			t.Fatal(err)
		}
	}
	var patch strings.Builder
	for name, f := range files {
		if f.oldMode != 0 {
			write(name, f.old, f.oldMode)
		}
		patch.WriteString(File(name, name, []byte(f.old), []byte(f.new), f.oldMode, f.newMode))
	}
	write("old-name.txt", "keep\nthis\n", ModeFile)
	patch.WriteString(File("old-name.txt", "new-name.txt", []byte("keep\nthis\n"), []byte("keep\nthat\n"), ModeFile, ModeFile))
	git("add", "-A")
	git("commit", "-q", "-m", "before")
	pf := filepath.Join(t.TempDir(), "p.patch")
	if err := os.WriteFile(pf, []byte(patch.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	git("apply", "--check", pf)
	git("apply", "--check", "--index", pf)
	if _, err := exec.LookPath("patch"); err == nil {
		cmd := exec.Command("patch", "-p1", "--dry-run", "-i", pf)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("patch -p1 --dry-run: %v\n%s\n%s", err, out, patch.String())
		}
	} else {
		t.Log("patch is not installed: only git apply judged the patch")
	}
	git("apply", "--index", pf)
	for name, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case f.newMode == 0:
			if !os.IsNotExist(err) {
				t.Errorf("%s: still there after the patch (%v)", name, err)
			}
		case err != nil:
			t.Errorf("%s: %v", name, err)
		case string(data) != f.new:
			t.Errorf("%s: got %q, want %q", name, data, f.new)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "new-name.txt")); err != nil || string(data) != "keep\nthat\n" {
		t.Errorf("new-name.txt: %q, %v", data, err)
	}
	// git's own view of the applied patch: every mode as asked.
	ls := git("ls-files", "-s")
	for _, want := range []string{"100755 ", "run.sh", "100644 "} {
		if !strings.Contains(ls, want) {
			t.Errorf("git ls-files -s lacks %q:\n%s", want, ls)
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(ls), "\n") {
		f := strings.Fields(l)
		if f[3] == "run.sh" && f[0] != "100755" || f[3] == "sub/dir/x.go" && f[0] != "100644" {
			t.Errorf("wrong mode after the patch: %s", l)
		}
	}
}

// TestOnlyImporterOfGotextdiff holds that gotextdiff (archived upstream)
// stays behind this one wrapper: no other package of ours imports it.
func TestOnlyImporterOfGotextdiff(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}: {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "github.com/autocoder/autocoder/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		if pkg == "github.com/autocoder/autocoder/unidiff" {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, "github.com/hexops/gotextdiff") {
				t.Errorf("%s imports %s: write diffs with package unidiff, the one wrapper", pkg, imp)
			}
		}
	}
}

// A name with a space ends its "---"/"+++" line with a tab, as git writes
// it: patch(1) reads a name up to the first white space otherwise, so that
// "+++ b/src/main.go b/x" would write src/main.go, not the file the patch
// names. The patch is applied by patch -p1 and by git apply, and each file
// ends up where its name says.
func TestNamesWithSpacesReachTheirFiles(t *testing.T) {
	files := []struct {
		name, old, new   string
		oldMode, newMode uint32
	}{
		{"x b/y.txt", "", "y\n", 0, ModeFile},
		{"src/main.go b/z", "", "z\n", 0, ModeFile},
		{"my file.txt", "1\n2\n", "1\ntwo\n", ModeFile, ModeFile},
		{"old one.txt", "bye\n", "", ModeFile, 0},
	}
	var patch strings.Builder
	for _, f := range files {
		patch.WriteString(File(f.name, f.name, []byte(f.old), []byte(f.new), f.oldMode, f.newMode))
	}
	for _, tool := range [][]string{{"patch", "-p1", "-s", "-i"}, {"git", "apply"}} {
		if _, err := exec.LookPath(tool[0]); err != nil {
			t.Logf("%s is not installed: not judged by it", tool[0])
			continue
		}
		dir := t.TempDir()
		write := func(name, data string) {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write("src/main.go", "package main\n")
		for _, f := range files {
			if f.oldMode != 0 {
				write(f.name, f.old)
			}
		}
		pf := filepath.Join(t.TempDir(), "p.patch")
		if err := os.WriteFile(pf, []byte(patch.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(tool[0], append(tool[1:], pf)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s\n%s", tool[0], err, out, patch.String())
			continue
		}
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(dir, f.name))
			if f.newMode == 0 {
				if !os.IsNotExist(err) {
					t.Errorf("%s: %q is still there", tool[0], f.name)
				}
			} else if string(data) != f.new {
				t.Errorf("%s: %q holds %q (%v), want %q", tool[0], f.name, data, err, f.new)
			}
		}
		if data, _ := os.ReadFile(filepath.Join(dir, "src/main.go")); string(data) != "package main\n" {
			t.Errorf("%s: src/main.go became %q", tool[0], data)
		}
	}
}
