package gitops

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// configAsked are the keys each configuration case is asked about: the
// ones autocoder reads, in other spellings too (git compares the section
// and the name without regard to case, the subsection as it is).
var configAsked = []string{
	"core.autocrlf", "core.eol", "core.attributesFile", "core.excludesFile", "core.safecrlf",
	"CORE.AutoCRLF", "user.name", "core.fileMode", "splitIndex.maxPercentChange",
	"branch.Feature/X.autocoderStart", "branch.feature/x.autocoderStart", "BRANCH.Feature/X.AUTOCODERFROM",
}

// configCases are configurations (identCase's form: files under HOME, the
// repository's config, the environment) with the keys of configAsked set
// in each place git reads, and inProcess: whether every key must be
// answered in-process ("no": the read, or a key of it, is git's).
var configCases = []identCase{
	{name: "global file", inProcess: "yes",
		files: map[string]string{".gitconfig": "[core]\n\tautocrlf = true\n\teol = crlf\n"}},
	{name: "XDG file", inProcess: "yes",
		files: map[string]string{"xdg/git/config": "[core]\n\tautocrlf = input\n\tattributesFile = ~/attrs\n"},
		env:   map[string]string{"XDG_CONFIG_HOME": "{{HOME}}/xdg"}},
	{name: "~/.config/git/config under ~/.gitconfig", inProcess: "yes",
		files: map[string]string{".config/git/config": "[core]\n\tautocrlf = input\n\teol = lf\n",
			".gitconfig": "[core]\n\tautocrlf = false\n"}},
	{name: "repository file over global", inProcess: "yes",
		files:   map[string]string{".gitconfig": "[core]\n\tautocrlf = true\n\texcludesFile = /global/ignore\n"},
		repoCfg: "[core]\n\tautocrlf = input\n[splitIndex]\n\tmaxPercentChange = 35\n"},
	{name: "last one wins, across sections and files", inProcess: "yes",
		files:   map[string]string{".gitconfig": "[core]\n\tautocrlf = true\n[user]\n\tname = First\n[core]\n\tautocrlf = input\n[user]\n\tname = Second\n"},
		repoCfg: "[core]\n\teol = crlf\n[core]\n\teol = lf\n"},
	{name: "case of sections and keys; subsections as written", inProcess: "yes",
		repoCfg: "[CORE]\n\tAutoCRLF = Input\n\tFILEMODE = false\n" +
			"[Branch \"Feature/X\"]\n\tAutocoderStart = 1111111111111111111111111111111111111111\n" +
			"[branch \"feature/x\"]\n\tautocoderstart = 2222222222222222222222222222222222222222\n" +
			"[branch \"Feature/X\"]\n\tautocoderFrom = refs/heads/main\n"},
	{name: "syntax: quotes, escapes, comments", inProcess: "yes",
		files: map[string]string{".gitconfig": "[core]\n\texcludesFile = \"~/my \\\"ignore\\\" file\" ; comment\n" +
			"\tattributesFile = /a/b # trailing\n\tEol = \"crlf\"\n"}},
	{name: "a key without a value", inProcess: "yes",
		repoCfg: "[core]\n\tautocrlf\n\tsafecrlf =\n"},
	{name: "include.path relative, in order", inProcess: "yes",
		files: map[string]string{
			".gitconfig":    "[core]\n\tautocrlf = true\n[include]\n\tpath = inc/crlf.conf\n[core]\n\teol = crlf\n",
			"inc/crlf.conf": "[core]\n\tautocrlf = input\n\teol = lf\n\tsafecrlf = warn\n"}},
	{name: "include.path ~/ and nested relative", inProcess: "yes",
		files: map[string]string{
			".gitconfig":      "[include]\n\tpath = ~/conf/a.conf\n",
			"conf/a.conf":     "[core]\n\tautocrlf = true\n[include]\n\tpath = sub/b.conf\n",
			"conf/sub/b.conf": "[core]\n\texcludesFile = ~/nested-ignore\n"}},
	{name: "include.path from the repository file", inProcess: "yes",
		files:   map[string]string{"repo.conf": "[core]\n\tautocrlf = input\n"},
		repoCfg: "[include]\n\tpath = {{HOME}}/repo.conf\n"},
	{name: "includeIf gitdir matching", inProcess: "yes",
		files: map[string]string{
			".gitconfig": "[core]\n\tautocrlf = false\n[includeIf \"gitdir:{{REPO}}/\"]\n\tpath = work.conf\n",
			"work.conf":  "[core]\n\tautocrlf = true\n"}},
	{name: "includeIf gitdir/i matching", inProcess: "yes",
		files: map[string]string{
			".gitconfig": "[includeIf \"gitdir/i:{{UPREPO}}/\"]\n\tpath = work.conf\n",
			"work.conf":  "[core]\n\teol = crlf\n"}},
	{name: "includeIf gitdir not matching", inProcess: "yes",
		files: map[string]string{
			".gitconfig": "[core]\n\tautocrlf = input\n[includeIf \"gitdir:/nowhere/\"]\n\tpath = work.conf\n" +
				"[includeIf \"gitdir:{{UPREPO}}/\"]\n\tpath = work.conf\n",
			"work.conf": "[core]\n\tautocrlf = true\n"}},
	{name: "config.worktree", inProcess: "yes",
		files:    map[string]string{".gitconfig": "[core]\n\tautocrlf = true\n"},
		repoCfg:  "[extensions]\n\tworktreeConfig = true\n[core]\n\teol = crlf\n",
		worktree: "[core]\n\tautocrlf = input\n"},
	{name: "linked worktree: includeIf its gitdir, its config.worktree", inProcess: "yes", linked: true,
		files: map[string]string{
			".gitconfig": "[includeIf \"gitdir:{{REPO}}/.git/worktrees/\"]\n\tpath = wt.conf\n",
			"wt.conf":    "[core]\n\tautocrlf = true\n"},
		repoCfg:  "[extensions]\n\tworktreeConfig = true\n",
		worktree: "[core]\n\teol = lf\n"},
	{name: "GIT_CONFIG_COUNT over every file", inProcess: "yes",
		repoCfg: "[core]\n\tautocrlf = input\n",
		env: map[string]string{"GIT_CONFIG_COUNT": "3", "GIT_CONFIG_KEY_0": "Core.AutoCRLF", "GIT_CONFIG_VALUE_0": "true",
			"GIT_CONFIG_KEY_1": "branch.Feature/X.autocoderStart", "GIT_CONFIG_VALUE_1": "3333333333333333333333333333333333333333",
			"GIT_CONFIG_KEY_2": "core.excludesFile", "GIT_CONFIG_VALUE_2": "with\ttab"}},
	{name: "GIT_CONFIG_SYSTEM under the global file", inProcess: "yes",
		files: map[string]string{"sys.conf": "[core]\n\tautocrlf = true\n\teol = crlf\n",
			".gitconfig": "[core]\n\teol = lf\n"},
		env: map[string]string{"GIT_CONFIG_NOSYSTEM": "-", "GIT_CONFIG_SYSTEM": "{{HOME}}/sys.conf"}},
	{name: "GIT_CONFIG_GLOBAL instead of the home files", inProcess: "yes",
		files: map[string]string{"other.conf": "[core]\n\tautocrlf = input\n", ".gitconfig": "[core]\n\tautocrlf = true\n"},
		env:   map[string]string{"GIT_CONFIG_GLOBAL": "{{HOME}}/other.conf"}},
	{name: "the system file as the machine has it", inProcess: "",
		files: map[string]string{".gitconfig": "[core]\n\teol = crlf\n"},
		env:   map[string]string{"GIT_CONFIG_NOSYSTEM": "-"}},
	{name: "fallback: includeIf onbranch", inProcess: "no",
		files: map[string]string{
			".gitconfig": "[core]\n\tautocrlf = false\n[includeIf \"onbranch:main\"]\n\tpath = work.conf\n",
			"work.conf":  "[core]\n\tautocrlf = true\n"}},
	{name: "fallback: a tab inside one value", inProcess: "no",
		files: map[string]string{".gitconfig": "[core]\n\texcludesFile = a\tb\n\tautocrlf = input\n"}},
	{name: "fallback: a continuation line", inProcess: "no",
		files: map[string]string{".gitconfig": "[core]\n\tattributesFile = /a\\\n/b\n\teol = crlf\n"}},
	{name: "fallback: git -c", inProcess: "no",
		repoCfg: "[core]\n\tautocrlf = input\n",
		env:     map[string]string{"GIT_CONFIG_PARAMETERS": "'core.autocrlf'='true'"}},
}

// gitConfigGet is `git config --get key` in environ: the value, and
// whether the key is set.
func gitConfigGet(t *testing.T, r *Repo, environ []string, key string) (string, bool) {
	t.Helper()
	cmd := exec.Command("git", "config", "--get", key)
	cmd.Dir, cmd.Env = r.Root, environ
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return "", false
	}
	if err != nil {
		t.Fatalf("git config --get %s: %v: %s", key, err, stderr.String())
	}
	return strings.TrimSuffix(string(out), "\n"), true
}

// TestConfigAsGitConfig compares the in-process reading of each key with
// `git config --get` in the same environment, and checks that the cases
// git's answer is not taken for are read in-process.
func TestConfigAsGitConfig(t *testing.T) {
	t.Parallel()
	for _, c := range configCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, lookup, environ := identSetup(t, c)
			s := r.readConfig(lookup)
			sure := s.in != nil
			for _, k := range configAsked {
				want, wantSet := gitConfigGet(t, r, environ, k)
				if s.in == nil || s.in.unsure[configKey(k)] {
					sure = false
					continue
				}
				got, set := s.in.vals[configKey(k)]
				if got != want || set != wantSet {
					t.Errorf("%s: got %q (set %v), git config --get says %q (set %v)", k, got, set, want, wantSet)
				}
			}
			if c.inProcess == "yes" && !sure || c.inProcess == "no" && sure {
				t.Errorf("every key read in-process: %v, want %s", sure, c.inProcess)
			}
		})
	}
}

// TestConfigValueAsksGit: where the in-process read is not sure, the
// value is git's (`git config --list`), for the whole configuration or
// for the one key.
func TestConfigValueAsksGit(t *testing.T) {
	t.Parallel()
	g, r, key, _ := onBranchInclude(t, "[core]\n\tautocrlf = input\n")
	if r.config().in != nil {
		t.Fatal("includeIf onbranch read in-process")
	}
	if got, want := r.ConfigValue("core", "autocrlf"), strings.TrimSpace(g.Git("config", "--get", "core.autocrlf")); got != want || want != "input" {
		t.Errorf("core.autocrlf: got %q, git says %q", got, want)
	}
	// One key git's: a tab inside its value.
	g.Git("config", "--unset", key)
	g.Git("config", "core.excludesFile", "a\tb")
	g.Git("config", "core.eol", "crlf")
	s := r.config()
	if s.in == nil || !s.in.unsure["core.excludesfile"] || s.in.unsure["core.eol"] {
		t.Fatalf("want the read in-process, unsure of core.excludesFile only")
	}
	if got := r.ConfigValue("core", "excludesFile"); got != "a\tb" {
		t.Errorf("core.excludesFile: got %q, want git's %q", got, "a\tb")
	}
	if got := r.ConfigValue("core", "eol"); got != "crlf" {
		t.Errorf("core.eol: got %q, want crlf", got)
	}
}

// TestConfigSeesChanges: the Repo keeps its read of the configuration,
// and a change of any file of it is seen at the next question: written by
// git config (a new file), rewritten in place with the same size (within
// the file system's timestamp granularity too), a global file appearing,
// the environment naming other files.
func TestConfigSeesChanges(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	g := gittest.New(t)
	r := openIn(t, g.Dir)
	env := map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	read := func() *configState {
		// Repo.config, in the test's environment.
		if r.cfg == nil || !r.cfg.current(lookup) {
			r.cfg = r.readConfig(lookup)
		}
		return r.cfg
	}
	get := func(k string) string { v, _, _ := read().value(r, k); return v }
	cfg := filepath.Join(g.Dir, ".git", "config")
	g.Git("config", "core.autocrlf", "false")
	// A file written long ago: the read is kept.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(cfg, old, old)
	if got := get("core.autocrlf"); got != "false" {
		t.Fatalf("core.autocrlf %q, want false", got)
	}
	if first, second := read(), read(); first != second || first.racy {
		t.Fatal("the read of files not changed since is not kept")
	}
	rewrite := func(from, to string) {
		b, _ := os.ReadFile(cfg)
		f, err := os.OpenFile(cfg, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(bytes.Replace(b, []byte(from), []byte(to), 1))
		f.Close()
	}
	rewrite("autocrlf = false", "autocrlf = input")
	if got := get("core.autocrlf"); got != "input" {
		t.Fatalf("after a write in place of the same size: %q", got)
	}
	// A file written just now may be written again within the same time
	// stamp, where its stat would not tell: such a read is not kept. (The
	// stamp is made coarse, a whole second, so that the file stays racy
	// for racyWindow however slowly the test runs.)
	now := time.Now().Truncate(time.Second)
	os.Chtimes(cfg, now, now)
	if first, second := read(), read(); first == second {
		t.Fatal("a read of a file written just now is kept")
	}
	fi, _ := os.Stat(cfg)
	rewrite("autocrlf = input", "autocrlf = false")
	os.Chtimes(cfg, fi.ModTime(), fi.ModTime())
	if got := get("core.autocrlf"); got != "false" {
		t.Fatalf("after a second write in place within the same time stamp: %q", got)
	}
	g.Git("config", "core.autocrlf", "true")
	if got := get("core.autocrlf"); got != "true" {
		t.Fatalf("after git config: %q", got)
	}
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\teol = crlf\n"), 0o666)
	if got := get("core.eol"); got != "crlf" {
		t.Fatalf("after the global file appeared: %q", got)
	}
	env["HOME"] = t.TempDir()
	if got := get("core.eol"); got != "" {
		t.Fatalf("after HOME changed: %q", got)
	}
}

// How long a file stays racy follows its time stamp's grain: one finer
// than a millisecond is the kernel's clock tick, and fineRacyWindow after
// it a second write would show; a coarser one (whole seconds, as FAT and
// some network file systems stamp) stays racy for racyWindow.
func TestRacyFollowsTheStampsGrain(t *testing.T) {
	t.Parallel()
	ago := time.Now().Add(-4 * fineRacyWindow)
	fine := ago.Truncate(time.Millisecond).Add(123456 * time.Nanosecond)
	coarse := ago.Truncate(time.Millisecond)
	if racy(fine) {
		t.Errorf("a fine stamp %v old is racy", time.Since(fine))
	}
	if !racy(coarse) {
		t.Errorf("a whole-millisecond stamp %v old is not racy", time.Since(coarse))
	}
	if !racy(time.Now().Add(123456 * time.Nanosecond)) {
		t.Error("a fine stamp of now is not racy")
	}
	if racy(time.Now().Add(-2 * racyWindow).Truncate(time.Second)) {
		t.Error("a coarse stamp twice racyWindow old is racy")
	}
}

// A long-lived process (a session) calls Refresh before each use: from
// then on, whether the configuration changed is looked at once per use, at
// the first question after the Refresh, however recent its files. A change
// in the middle of a use is seen at the next; autocoder's own write
// (configSet) at once. A process that never calls Refresh looks at each
// question, as before.
func TestConfigIsLookedAtOncePerUseAfterRefresh(t *testing.T) {
	t.Parallel()
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	r := openIn(t, g.Dir)
	g.Git("config", "core.autocrlf", "false") // just now: the file is racy
	if got := r.configValue("core.autocrlf"); got != "false" {
		t.Fatalf("core.autocrlf %q, want false", got)
	}
	g.Git("config", "core.autocrlf", "input")
	if got := r.configValue("core.autocrlf"); got != "input" {
		t.Fatalf("without Refresh, a change is seen at the next question: %q", got)
	}

	r.Refresh() // a use starts
	if got := r.configValue("core.autocrlf"); got != "input" {
		t.Fatalf("core.autocrlf %q, want input", got)
	}
	first := r.config()
	g.Git("config", "core.autocrlf", "true")
	if got := r.configValue("core.autocrlf"); got != "input" || r.config() != first {
		t.Fatalf("the configuration was read again within one use (%q)", got)
	}
	r.Refresh() // the next use
	if got := r.configValue("core.autocrlf"); got != "true" {
		t.Fatalf("the next use reads %q, want true", got)
	}
	start := plumbing.NewHash(strings.TrimSpace(g.Git("rev-parse", "HEAD")))
	if _, err := r.SetBranchStart("autocoder/main", start, "refs/heads/main"); err != nil {
		t.Fatal(err)
	}
	if got, from, ok := r.BranchStart("autocoder/main"); !ok || got != start || from != "refs/heads/main" {
		t.Fatalf("autocoder's own write is not seen within the use: %v %q %v", got, from, ok)
	}
}

// boolValues are spellings of a boolean key's value, each tried as
// core.autocrlf's: no "=" (git's true), an empty value (false), the words
// in any case, integers (nonzero is true) with C's sign and 0x and 0
// prefixes and git's k, m and g, at and past git's int bounds, and values
// git refuses as a boolean.
var boolValues = []string{"", " =", " = yes", " = On", " = TRUE", " = off", " = No", " = false",
	" = 0", " = 1", " = 2", " = -0", " = +1", " = -3", " = 1k", " = 3m", " = 1G", " = 0x10", " = 0X1f",
	" = 010", " = \" 1\"", " = 0x", " = 08", " = 1_0", " = 0b1", " = 1 k", " = input", " = truth",
	" = 2147483647", " = 2147483648", " = -2147483647", " = -2147483648", " = 2097151k", " = 2097152k",
	" = 99999999999999999999"}

// boolCases are configurations of core.autocrlf for TestConfigBoolAsGit:
// every value of boolValues in the repository's file, then the last
// assignment deciding between a key without "=" and one with.
func boolCases() []identCase {
	var cases []identCase
	for _, v := range boolValues {
		cases = append(cases, identCase{name: "autocrlf" + v, repoCfg: "[core]\n\tautocrlf" + v + "\n"})
	}
	return append(cases,
		identCase{name: "no value, then false", repoCfg: "[core]\n\tautocrlf\n\tautocrlf = false\n"},
		identCase{name: "false, then no value", repoCfg: "[core]\n\tautocrlf = false\n[core]\n\tautocrlf\n"},
		identCase{name: "no value in the global file, 0 in the repository's",
			files: map[string]string{".gitconfig": "[core]\n\tautocrlf\n"}, repoCfg: "[core]\n\tautocrlf = 0\n"},
		identCase{name: "off in the global file, no value in the repository's",
			files: map[string]string{".gitconfig": "[core]\n\tautocrlf = off\n"}, repoCfg: "[core]\n\tAutoCRLF\n"},
		identCase{name: "GIT_CONFIG_COUNT: an empty value", repoCfg: "[core]\n\tautocrlf\n",
			env: map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.autocrlf", "GIT_CONFIG_VALUE_0": ""}},
		identCase{name: "unset"},
	)
}

// gitConfigBool is `git config --type=bool --get key` in environ: on, and
// ok false where the key is unset or git refuses its value as a boolean.
func gitConfigBool(t *testing.T, r *Repo, environ []string, key string) (on, ok bool, said string) {
	t.Helper()
	cmd := exec.Command("git", "config", "--type=bool", "--get", key)
	cmd.Dir, cmd.Env = r.Root, environ
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return false, false, strings.TrimSpace(stderr.String())
	}
	switch got := strings.TrimSpace(string(out)); got {
	case "true", "false":
		return got == "true", true, got
	default:
		t.Fatalf("git config --type=bool --get %s: %q", key, got)
	}
	return false, false, ""
}

// TestConfigBoolAsGit: a boolean key is read as git reads it
// (git_config_bool), judged by `git config --type=bool`.
func TestConfigBoolAsGit(t *testing.T) {
	t.Parallel()
	for _, c := range boolCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, lookup, environ := identSetup(t, c)
			s := r.readConfig(lookup)
			if s.in == nil {
				t.Fatal("not read in-process")
			}
			for _, k := range []string{"core.autocrlf", "Core.AutoCRLF"} {
				want, wantOK, said := gitConfigBool(t, r, environ, k)
				if on, ok := s.boolean(r, configKey(k)); on != want || ok != wantOK {
					t.Errorf("%s: got %v (ok %v); git config --type=bool says %q", k, on, ok, said)
				}
			}
		})
	}
}

// TestConfigBoolAsksGit: where git reads the configuration, a key
// without "=" is still true, and an assignment after it decides.
func TestConfigBoolAsksGit(t *testing.T) {
	t.Parallel()
	g, r, _, inc := onBranchInclude(t, "[core]\n\tautocrlf\n")
	check := func(want bool) {
		t.Helper()
		if r.config().in != nil {
			t.Fatal("includeIf onbranch read in-process")
		}
		gitSays := strings.TrimSpace(g.Git("config", "--type=bool", "--get", "core.autocrlf"))
		if on, ok := r.ConfigBool("core", "autocrlf"); on != want || !ok || gitSays != fmt.Sprint(want) {
			t.Errorf("core.autocrlf: got %v (ok %v), git says %s, want %v", on, ok, gitSays, want)
		}
	}
	check(true)
	// After the include, in the same file: the last assignment is git's.
	f, err := os.OpenFile(filepath.Join(g.Dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[core]\n\tautocrlf = no\n")
	f.Close()
	check(false)
	os.WriteFile(inc, []byte("[core]\n\tautocrlf = no\n\tautocrlf\n"), 0o666)
	g.Git("config", "--unset-all", "core.autocrlf")
	check(true)
}

// onBranchInclude is a committed repository whose configuration includes
// a file holding body for its current branch (includeIf "onbranch:", which
// only git itself reads), opened; with the include's key and file.
func onBranchInclude(t *testing.T, body string) (g *gittest.Repo, r *Repo, key, inc string) {
	t.Helper()
	g = gittest.New(t)
	g.Git("commit", "-q", "--allow-empty", "-m", "first")
	inc = filepath.Join(t.TempDir(), "branch.conf")
	if err := os.WriteFile(inc, []byte(body), 0o666); err != nil {
		t.Fatal(err)
	}
	branch := strings.TrimPrefix(strings.TrimSpace(g.Git("symbolic-ref", "HEAD")), "refs/heads/")
	key = "includeIf.onbranch:" + branch + ".path"
	g.Git("config", key, inc)
	return g, openIn(t, g.Dir), key, inc
}

// A configuration that git must resolve (includeIf "onbranch:", which
// the in-process read leaves to git) still depends on every file git
// reads for it: an included file the user edits between two uses is seen
// at the next (the in-process read stopped at the onbranch, before that
// include, and never looked at it again), and so is a branch switch that
// changes what onbranch includes. Every file is made old, so that no
// racy stamp makes the read be done again anyway.
func TestConfigResolvedByGitSeesChanges(t *testing.T) {
	home := gittest.Isolate(t) // its files are made old below, as every file read
	g := gittest.NewWithCommit(t, map[string]string{"a.txt": "a\n"})
	dir := t.TempDir()
	onb, later := filepath.Join(dir, "onbranch.inc"), filepath.Join(dir, "later.inc")
	os.WriteFile(onb, []byte("[test]\n\tonbranch = yes\n"), 0o666)
	os.WriteFile(later, []byte("[test]\n\tkey = one\n"), 0o666)
	g.Git("config", "includeIf.onbranch:other.path", onb)
	g.Git("config", "include.path", later)
	r := openIn(t, g.Dir)
	ask := func(key, want, when string) {
		t.Helper()
		git, _ := g.GitErr("config", "--get", key)
		if got := r.configValue(key); got != want || strings.TrimSpace(git) != want {
			t.Errorf("%s: %s is %q, git says %q, want %q", when, key, got, strings.TrimSpace(git), want)
		}
	}
	// Old enough that the reads below are kept while the files stand.
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{onb, later, filepath.Join(g.Dir, ".git", "config"), filepath.Join(g.Dir, ".git", "HEAD"), filepath.Join(home, ".gitconfig")} {
		os.Chtimes(p, old, old)
	}
	r.Refresh()
	ask("test.key", "one", "at the start")
	ask("test.onbranch", "", "at the start")

	os.WriteFile(later, []byte("[test]\n\tkey = second\n"), 0o666)
	os.Chtimes(later, old, old.Add(time.Second))
	r.Refresh()
	ask("test.key", "second", "after an edit of the included file")

	g.Git("checkout", "-q", "-b", "other")
	r.Refresh()
	ask("test.onbranch", "yes", "on the branch other")
}
