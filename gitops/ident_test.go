package gitops

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocoder/autocoder/gitops/gittest"
)

// identCase is one configuration: files under the test's own HOME
// ({{HOME}} and {{REPO}}, the work tree, are replaced in their text), the
// repository's config (appended), and the environment on top of the
// isolated one (HOME, GIT_CONFIG_NOSYSTEM=1, PATH; "-" unsets).
type identCase struct {
	name     string
	files    map[string]string
	repoCfg  string
	worktree string // the worktree's config.worktree
	linked   bool   // open a linked worktree (git worktree add) of the repository
	env      map[string]string
	// inProcess: whether the identity must be resolved without git var
	// ("yes", "no", or "" for either: the machine decides).
	inProcess string
}

var identCases = []identCase{
	{name: "environment only", inProcess: "yes",
		env: map[string]string{"GIT_AUTHOR_NAME": "Ann Author", "GIT_AUTHOR_EMAIL": "ann@example.com",
			"GIT_COMMITTER_NAME": "Cid Committer", "GIT_COMMITTER_EMAIL": "cid@example.com"}},
	{name: "global file only", inProcess: "yes",
		files: map[string]string{".gitconfig": "[user]\n\tname = Gil Global\n\temail = gil@example.com\n"}},
	{name: "XDG file", inProcess: "yes",
		files: map[string]string{"xdg/git/config": "[user]\n\tname = Xena Xdg\n\temail = xena@example.com\n"},
		env:   map[string]string{"XDG_CONFIG_HOME": "{{HOME}}/xdg"}},
	{name: "~/.config/git/config under ~/.gitconfig", inProcess: "yes",
		files: map[string]string{".config/git/config": "[user]\n\tname = Con Fig\n\temail = con@example.com\n",
			".gitconfig": "[user]\n\temail = over@example.com\n"}},
	{name: "repo config overrides global", inProcess: "yes",
		files:   map[string]string{".gitconfig": "[user]\n\tname = Gil Global\n\temail = gil@example.com\n"},
		repoCfg: "[user]\n\temail = repo@example.com\n"},
	{name: "include.path relative, in order", inProcess: "yes",
		files: map[string]string{
			".gitconfig":  "[user]\n\tname = Before\n[include]\n\tpath = inc/id.conf\n[user]\n\temail = after@example.com\n",
			"inc/id.conf": "[user]\n\tname = Included Name\n\temail = included@example.com\n"}},
	{name: "include.path ~/ and nested relative", inProcess: "yes",
		files: map[string]string{
			".gitconfig":      "[include]\n\tpath = ~/conf/a.conf\n",
			"conf/a.conf":     "[user]\n\tname = Tilde Name\n[include]\n\tpath = sub/b.conf\n",
			"conf/sub/b.conf": "[user]\n\temail = nested@example.com\n"}},
	{name: "includeIf gitdir matching", inProcess: "yes",
		files: map[string]string{
			".gitconfig": "[user]\n\tname = Home\n\temail = home@example.com\n[includeIf \"gitdir:{{REPO}}/\"]\n\tpath = work.conf\n",
			"work.conf":  "[user]\n\temail = work@example.com\n"}},
	{name: "includeIf gitdir relative pattern matching", inProcess: "yes",
		files: map[string]string{
			".gitconfig": "[user]\n\tname = Home\n\temail = home@example.com\n[includeIf \"gitdir:{{BASE}}/.git\"]\n\tpath = work.conf\n",
			"work.conf":  "[user]\n\temail = rel@example.com\n"}},
	{name: "includeIf gitdir/i matching", inProcess: "yes",
		files: map[string]string{
			".gitconfig": "[user]\n\tname = Home\n\temail = home@example.com\n[includeIf \"gitdir/i:{{UPREPO}}/\"]\n\tpath = work.conf\n",
			"work.conf":  "[user]\n\temail = icase@example.com\n"}},
	{name: "includeIf gitdir not matching", inProcess: "yes",
		files: map[string]string{
			".gitconfig": "[user]\n\tname = Home\n\temail = home@example.com\n[includeIf \"gitdir:/nowhere/\"]\n\tpath = work.conf\n" +
				"[includeIf \"gitdir:{{UPREPO}}/\"]\n\tpath = work.conf\n",
			"work.conf": "[user]\n\temail = work@example.com\n"}},
	{name: "author.* before user.*", inProcess: "yes",
		files: map[string]string{".gitconfig": "[user]\n\tname = User Name\n\temail = user@example.com\n" +
			"[author]\n\tname = Author Name\n[committer]\n\temail = committer@example.com\n\tname =\n"}},
	{name: "GIT_CONFIG_COUNT", inProcess: "yes",
		files:   map[string]string{".gitconfig": "[user]\n\tname = Gil Global\n\temail = gil@example.com\n"},
		repoCfg: "[user]\n\temail = repo@example.com\n",
		env: map[string]string{"GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "user.email", "GIT_CONFIG_VALUE_0": "count@example.com",
			"GIT_CONFIG_KEY_1": "Author.Name", "GIT_CONFIG_VALUE_1": "Counted Author"}},
	{name: "config.worktree", inProcess: "yes",
		files:    map[string]string{".gitconfig": "[user]\n\tname = Gil Global\n\temail = gil@example.com\n"},
		repoCfg:  "[extensions]\n\tworktreeConfig = true\n",
		worktree: "[user]\n\tname = Worktree Name\n"},
	{name: "linked worktree: includeIf its gitdir, its config.worktree", inProcess: "yes", linked: true,
		files: map[string]string{
			".gitconfig": "[user]\n\tname = Home\n\temail = home@example.com\n[includeIf \"gitdir:{{REPO}}/.git/worktrees/\"]\n\tpath = wt.conf\n",
			"wt.conf":    "[user]\n\temail = linked@example.com\n"},
		repoCfg:  "[extensions]\n\tworktreeConfig = true\n",
		worktree: "[user]\n\tname = Linked Name\n"},
	{name: "EMAIL", inProcess: "yes",
		files: map[string]string{".gitconfig": "[user]\n\tname = Mail Env\n"},
		env:   map[string]string{"EMAIL": "env@example.com"}},
	{name: "GIT_AUTHOR_DATE @unix +zone", inProcess: "yes",
		files: map[string]string{".gitconfig": "[user]\n\tname = Dated\n\temail = dated@example.com\n"},
		env:   map[string]string{"GIT_AUTHOR_DATE": "@123 +0200", "GIT_COMMITTER_DATE": "1700000000 -0130"}},
	{name: "TZ names a zone", inProcess: "yes",
		files: map[string]string{".gitconfig": "[user]\n\tname = Zoned\n\temail = zoned@example.com\n"},
		env:   map[string]string{"TZ": "Asia/Kolkata"}},
	{name: "fallback: TZ is a POSIX rule", inProcess: "no",
		files: map[string]string{".gitconfig": "[user]\n\tname = Zoned\n\temail = zoned@example.com\n"},
		env:   map[string]string{"TZ": "XYZ-3:30"}},
	{name: "config syntax: case, quotes, escapes, comments, continuation", inProcess: "yes",
		files: map[string]string{".gitconfig": "[User]\n\tName = \"Quoted \\\"Q\\\" Name\" ; comment\n" +
			"\tEMAIL = syntax@example.com # trailing\n[AUTHOR]\n\tname = \"Spaced  Inside\"\n"}},
	{name: "fallback: continuation line", inProcess: "no",
		files: map[string]string{".gitconfig": "[user]\n\tname = Plain\n\temail = x@example.com\n[include]\n\tpath = a\\\n.conf\n",
			"a.conf": "[user]\n\temail = joined@example.com\n"}},
	{name: "fallback: a tab inside a name", inProcess: "no",
		files: map[string]string{".gitconfig": "[user]\n\tname = Tab\tName\n\temail = x@example.com\n"}},
	{name: "fallback: a section and key on one line (gcfg refuses it)", inProcess: "no",
		files: map[string]string{".gitconfig": "[user]name=Tight Name\n[user]\n\temail = x@example.com\n"}},
	{name: "fallback: a relative GIT_CONFIG_GLOBAL", inProcess: "no",
		repoCfg: "[user]\n\tname = Repo Name\n\temail = repo@example.com\n",
		env:     map[string]string{"GIT_CONFIG_GLOBAL": "relative.conf"}},
	{name: "fallback: a name without a value", inProcess: "no",
		files: map[string]string{".gitconfig": "[user]\n\tname\n\temail = x@example.com\n"}},
	{name: "fallback: includeIf hasconfig", inProcess: "no",
		files: map[string]string{
			".gitconfig": "[user]\n\tname = Home\n\temail = home@example.com\n[includeIf \"hasconfig:remote.*.url:https://example.com/**\"]\n\tpath = work.conf\n",
			"work.conf":  "[user]\n\temail = work@example.com\n"}},
	{name: "fallback: includeIf onbranch", inProcess: "no",
		files: map[string]string{
			".gitconfig": "[user]\n\tname = Home\n\temail = home@example.com\n[includeIf \"onbranch:main\"]\n\tpath = work.conf\n",
			"work.conf":  "[user]\n\temail = branch@example.com\n"}},
	{name: "fallback: another date format", inProcess: "no",
		files: map[string]string{".gitconfig": "[user]\n\tname = Dated\n\temail = dated@example.com\n"},
		env:   map[string]string{"GIT_AUTHOR_DATE": "2005-04-07T22:13:13 +0200"}},
	{name: "fallback: crud in the name", inProcess: "no",
		files: map[string]string{".gitconfig": "[user]\n\tname = \" Crud, Name;\"\n\temail = <crud@example.com>\n"}},
	{name: "fallback: useConfigOnly with EMAIL", inProcess: "no",
		files: map[string]string{".gitconfig": "[user]\n\tname = Only Config\n\tuseConfigOnly = true\n"},
		env:   map[string]string{"EMAIL": "env@example.com"}},
	{name: "system file as the machine has it", inProcess: "",
		files: map[string]string{".gitconfig": "[user]\n\tname = Gil Global\n\temail = gil@example.com\n"},
		env:   map[string]string{"GIT_CONFIG_NOSYSTEM": "-"}},
	{name: "GIT_CONFIG_SYSTEM", inProcess: "yes",
		files: map[string]string{"sys.conf": "[user]\n\tname = Sys Tem\n\temail = sys@example.com\n",
			".gitconfig": "[user]\n\temail = gil@example.com\n"},
		env: map[string]string{"GIT_CONFIG_NOSYSTEM": "-", "GIT_CONFIG_SYSTEM": "{{HOME}}/sys.conf"}},
}

// identSetup makes the case's HOME and repository and returns the
// repository and its environment, as a lookup and as a list.
func identSetup(t testing.TB, c identCase) (*Repo, func(string) (string, bool), []string) {
	home := t.TempDir()
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	g := gittest.New(t)
	subst := strings.NewReplacer("{{HOME}}", home, "{{REPO}}", g.Dir, "{{UPREPO}}", strings.ToUpper(g.Dir),
		"{{BASE}}", filepath.Base(g.Dir))
	for p, text := range c.files {
		f := filepath.Join(home, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(f), 0o777)
		if err := os.WriteFile(f, []byte(subst.Replace(text)), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	appendFile := func(p, text string) {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o666)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(subst.Replace(text))
		f.Close()
	}
	if c.repoCfg != "" {
		appendFile(filepath.Join(g.Dir, ".git", "config"), c.repoCfg)
	}
	dir, gitDir := g.Dir, filepath.Join(g.Dir, ".git")
	if c.linked {
		g.Git("commit", "-q", "--allow-empty", "-m", "first")
		dir = g.Dir + "-linked"
		g.Git("worktree", "add", "-q", dir)
		t.Cleanup(func() { os.RemoveAll(dir) })
		gitDir = filepath.Join(g.Dir, ".git", "worktrees", filepath.Base(dir))
	}
	if c.worktree != "" {
		appendFile(filepath.Join(gitDir, "config.worktree"), c.worktree)
	}
	env := map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.Getenv("PATH")}
	if tz, ok := os.LookupEnv("TZ"); ok {
		env["TZ"] = tz
	}
	for k, v := range c.env {
		if v == "-" {
			delete(env, k)
		} else {
			env[k] = subst.Replace(v)
		}
	}
	var list []string
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	r := openIn(t, dir)
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	return r, lookup, list
}

// TestIdentityAsGitVar compares the identity with `git var`'s in the same
// environment, for each case, and checks that the cases git's answer is
// not taken for are resolved in-process.
func TestIdentityAsGitVar(t *testing.T) {
	t.Parallel()
	for _, c := range identCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, lookup, environ := identSetup(t, c)
			_, _, ok := r.identityInProcess(lookup)
			if c.inProcess == "yes" && !ok || c.inProcess == "no" && ok {
				t.Errorf("resolved in-process: %v, want %s", ok, c.inProcess)
			}
			author, committer, err := r.identity(lookup, environ)
			if err != nil {
				// git must refuse too, and the error say so as it did.
				var ie *IdentityError
				if !errors.As(err, &ie) {
					t.Fatal(err)
				}
				cmd := exec.Command("git", "var", "GIT_"+strings.ToUpper(ie.Which)+"_IDENT")
				cmd.Dir, cmd.Env = r.Root, environ
				if out, gerr := cmd.CombinedOutput(); gerr == nil || !strings.Contains(string(out), ie.Detail) {
					t.Fatalf("%v; git var says %s (%v)", err, out, gerr)
				}
				return
			}
			_, dateSet := lookup("GIT_AUTHOR_DATE")
			checkIdent(t, r, environ, "GIT_AUTHOR_IDENT", author, dateSet)
			_, dateSet = lookup("GIT_COMMITTER_DATE")
			checkIdent(t, r, environ, "GIT_COMMITTER_IDENT", committer, dateSet)
		})
	}
}

func checkIdent(t *testing.T, r *Repo, environ []string, v string, got Signature, dateSet bool) {
	t.Helper()
	cmd := exec.Command("git", "var", v)
	cmd.Dir, cmd.Env = r.Root, environ
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git var %s: %v", v, err)
	}
	want, err := ParseSignature(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != want.Name || got.Email != want.Email {
		t.Errorf("%s: got %q <%s>, git says %q <%s>", v, got.Name, got.Email, want.Name, want.Email)
	}
	_, gotOff := got.When.Zone()
	_, wantOff := want.When.Zone()
	if gotOff != wantOff {
		t.Errorf("%s: zone offset %d, git says %d", v, gotOff, wantOff)
	}
	if dateSet {
		if !got.When.Equal(want.When) {
			t.Errorf("%s: date %v, git says %v", v, got.When, want.When)
		}
	} else if !got.When.IsZero() || time.Since(want.When).Abs() > 5*time.Second {
		t.Errorf("%s: got date %v (want none: the caller stamps now), git says %v", v, got.When, want.When)
	}
}

// TestIdentityMissing: with no identity configured at all the error is
// the one it has always been (git's word, with our hint), not a guess.
func TestIdentityMissing(t *testing.T) {
	t.Parallel()
	r, lookup, environ := identSetup(t, identCase{files: map[string]string{".gitconfig": "[user]\n\tuseConfigOnly = true\n"}})
	if _, _, ok := r.identityInProcess(lookup); ok {
		t.Fatal("resolved in-process without a configured identity")
	}
	_, _, err := r.identity(lookup, environ)
	var ie *IdentityError
	if !errors.As(err, &ie) || ie.Which != "author" || !strings.Contains(ie.Detail, "auto-detection is disabled") ||
		!strings.Contains(ie.Hint(), "git config --global user.email") {
		t.Fatalf("got %v, want the author IdentityError with git's detail", err)
	}
}

// BenchmarkIdentity compares the in-process resolution with `git var`.
func BenchmarkIdentity(b *testing.B) {
	c := identCases[5] // include.path: a global file and an include
	r, lookup, environ := identSetup(b, c)
	b.Run("in-process", func(b *testing.B) {
		for b.Loop() {
			if _, _, ok := r.identityInProcess(lookup); !ok {
				b.Fatal("not resolved in-process")
			}
		}
	})
	b.Run("git-var", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.ident(lookup, environ, "GIT_AUTHOR_IDENT", "author", "GIT_AUTHOR_DATE"); err != nil {
				b.Fatal(err)
			}
			if _, err := r.ident(lookup, environ, "GIT_COMMITTER_IDENT", "committer", "GIT_COMMITTER_DATE"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
