package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// gitTraces is what a refused or failed apply must leave as it was in
// .git: the config, autocoder's own files (its lock file aside, which is
// held, not written; of the spare *.tmp files that autocoder rewrites
// rather than creates anew, whether they exist: their bytes are never
// read) and every ref, with the folders of refs. Loose objects are not
// compared: a failed step may leave objects nobody references, as git
// does.
func gitTraces(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	cfg, err := os.ReadFile(filepath.Join(dir, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "== .git/config\n%s", cfg)
	var files []string
	priv := filepath.Join(dir, ".git", "autocoder")
	filepath.WalkDir(priv, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || (filepath.Dir(p) == priv && d.Name() == "lock") {
			return nil
		}
		data, _ := os.ReadFile(p)
		if strings.HasSuffix(p, ".tmp") {
			data = nil
		}
		rel, _ := filepath.Rel(priv, p)
		files = append(files, fmt.Sprintf("%s %x", filepath.ToSlash(rel), sha256.Sum256(data)))
		return nil
	})
	sort.Strings(files)
	fmt.Fprintf(&b, "== .git/autocoder\n%s\n", strings.Join(files, "\n"))
	var refs []string
	filepath.WalkDir(filepath.Join(dir, ".git", "refs"), func(p string, d os.DirEntry, err error) error {
		if err == nil {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(filepath.Join(dir, ".git"), p)
			refs = append(refs, filepath.ToSlash(rel)+" "+strings.TrimSpace(string(data)))
		}
		return nil
	})
	packed, _ := os.ReadFile(filepath.Join(dir, ".git", "packed-refs"))
	head, _ := os.ReadFile(filepath.Join(dir, ".git", "HEAD"))
	fmt.Fprintf(&b, "== refs\n%s\n== packed-refs\n%s== HEAD\n%s", strings.Join(refs, "\n"), packed, head)
	return b.String()
}

const createB = "#####--\n{\"metadata\":{\"step_id\":\"s1\",\"reason\":\"add b\"},\"file_operations\":[{\"action_type\":\"create_file\",\"path\":\"b.txt\",\"file_content\":\"b\\n\"}]}\n--#####\n"
const createEnv = "#####--\n{\"metadata\":{\"step_id\":\"s2\",\"reason\":\"add .env\"},\"file_operations\":[{\"action_type\":\"create_file\",\"path\":\".env\",\"file_content\":\"x\\n\"}]}\n--#####\n"

// A refused or failed apply leaves .git as it was: no [branch] section for
// a work branch that does not exist, no journal file, no ref; and the
// refusal names its cause and the remedy.
func TestFailedApplyLeavesNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		setup    func(r *trustRepo)
		args     []string
		response string
		code     int
		want     []string // in the output
	}{
		{"branch in the way", func(r *trustRepo) { r.git("branch", "autocoder") }, nil, createB, 2,
			[]string{`a branch named autocoder exists`, `hint: `, `git branch -m autocoder`, `branch_prefix`}},
		{"HEAD.lock held", func(r *trustRepo) {
			must(t, os.WriteFile(filepath.Join(r.Dir, ".git", "HEAD.lock"), nil, 0o644))
		}, nil, createB, 4, []string{`HEAD.lock`, `hint: `}},
		{"atomic, a later block refused", nil, []string{"--atomic"}, createB + "\n" + createEnv, 4,
			[]string{`.env`, `rolled back by --atomic`}},
		{"atomic, on a work branch already", func(r *trustRepo) {
			r.autocoder(nil, "apply", r.response("first.md", strings.ReplaceAll(strings.ReplaceAll(createB, "b.txt", "a2.txt"), "s1", "s0")))
		}, []string{"--atomic"}, createB + "\n" + createEnv, 4, []string{`rolled back by --atomic`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newTrustRepo(t, "", false)
			if tc.setup != nil {
				tc.setup(r)
			}
			before := gitTraces(t, r.Dir)
			snap := r.Snapshot()
			out, code := r.autocoder(nil, append(append([]string{"apply"}, tc.args...), r.response("r.md", tc.response))...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the output does not say %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "not a directory") {
				t.Errorf("a raw error:\n%s", out)
			}
			if after := gitTraces(t, r.Dir); after != before {
				t.Errorf(".git changed:\n--- before\n%s\n--- after\n%s", before, after)
			}
			r.AssertRestored(snap)
		})
	}
}
