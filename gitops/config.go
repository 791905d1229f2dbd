package gitops

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/autocoder/autocoder/gitops/index"
	"github.com/go-git/gcfg"
)

// The identity without `git var`: git's own resolution (ident.c, config.c)
// for what users configure, read in-process, because two `git var`
// processes cost a few milliseconds of every apply. Whatever this does not
// reproduce exactly (an identity git would guess from the machine, an
// includeIf condition other than gitdir, a system file at a place we
// cannot be sure of, a name git would clean up, a date in another format)
// makes identityInProcess answer !ok, and the caller asks `git var`: the
// answer is git's either way.

// identKeys are the configuration keys the identity reads.
var identKeys = map[string]bool{
	"user.name": true, "user.email": true, "author.name": true, "author.email": true,
	"committer.name": true, "committer.email": true, "user.useconfigonly": true,
}

// maxIncludeDepth is git's MAX_INCLUDE_DEPTH: deeper, git stops with an error.
const maxIncludeDepth = 10

// errNotMine says the configuration uses what identConfig does not
// implement: the caller asks git.
var errNotMine = errors.New("not resolved in-process")

// identConfig reads the identity keys of git's configuration files, in
// git's order, following include.path and includeIf "gitdir:".
type identConfig struct {
	env    func(string) (string, bool)
	gitDir string // the repository's (the worktree's) git directory
	vals   map[string]string
	// worktreeConfig is extensions.worktreeConfig of the common config.
	worktreeConfig bool
}

// identityInProcess resolves the author and committer as `git var
// GIT_AUTHOR_IDENT` and `git var GIT_COMMITTER_IDENT` would in r with the
// environment env (os.LookupEnv). ok is false where git's answer could
// differ from ours (see above): then nothing is resolved.
func (r *Repo) identityInProcess(env func(string) (string, bool)) (author, committer Signature, ok bool) {
	c := &identConfig{env: env, gitDir: r.GitDir, vals: map[string]string{}}
	if c.read(r) != nil {
		return Signature{}, Signature{}, false
	}
	author, ok = c.signature("AUTHOR", "author")
	if !ok {
		return Signature{}, Signature{}, false
	}
	committer, ok = c.signature("COMMITTER", "committer")
	if !ok {
		return Signature{}, Signature{}, false
	}
	return author, committer, true
}

// read reads every configuration file git var reads, in git's order.
func (c *identConfig) read(r *Repo) error {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		// git for Windows keeps a system file beside its executable and
		// reads the environment without regard to case: ask it.
		return errNotMine
	}
	// Variables that change what git reads, which we do not follow.
	for _, v := range []string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG", "GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"} {
		if _, set := c.env(v); set {
			return errNotMine
		}
	}
	// git reads a relative path from the top of the work tree, where it
	// runs, not from our folder.
	for _, v := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "XDG_CONFIG_HOME", "HOME"} {
		if p, _ := c.env(v); p != "" && !filepath.IsAbs(p) {
			return errNotMine
		}
	}
	// A repository of another user is not read by git (safe.directory).
	for _, d := range []string{r.Root, r.GitDir, r.CommonDir} {
		fi, err := os.Stat(d)
		if err != nil || int(index.StatOf(fi).UID) != os.Geteuid() {
			return errNotMine
		}
	}
	if err := c.system(); err != nil {
		return err
	}
	if g, set := c.env("GIT_CONFIG_GLOBAL"); set {
		if g == "" {
			return errNotMine
		}
		if err := c.file(g, 0); err != nil {
			return err
		}
	} else {
		home, hasHome := c.env("HOME")
		if hasHome && home == "" {
			return errNotMine
		}
		if x, _ := c.env("XDG_CONFIG_HOME"); x != "" {
			if err := c.file(filepath.Join(x, "git", "config"), 0); err != nil {
				return err
			}
		} else if hasHome {
			if err := c.file(filepath.Join(home, ".config", "git", "config"), 0); err != nil {
				return err
			}
		}
		if hasHome {
			if err := c.file(filepath.Join(home, ".gitconfig"), 0); err != nil {
				return err
			}
		}
	}
	if err := c.fileOf(filepath.Join(r.CommonDir, "config"), 0, true); err != nil {
		return err
	}
	if c.worktreeConfig {
		if err := c.file(filepath.Join(r.GitDir, "config.worktree"), 0); err != nil {
			return err
		}
	}
	return c.parameters()
}

// system reads the system file where we know which one git reads: a git
// built with prefix /usr reads /etc/gitconfig; another prefix has its own
// etc/gitconfig, and where such a file exists git is asked.
func (c *identConfig) system() error {
	if v, _ := c.env("GIT_CONFIG_NOSYSTEM"); v != "" {
		on, ok := parseBool(v)
		if !ok {
			return errNotMine
		}
		if on {
			return nil
		}
	}
	if p, set := c.env("GIT_CONFIG_SYSTEM"); set {
		if p == "" {
			return errNotMine
		}
		return c.file(p, 0)
	}
	if runtime.GOOS != "linux" {
		// Apple's git reads a file of Xcode's: only git knows which.
		return errNotMine
	}
	bin, err := exec.LookPath("git")
	if err != nil {
		return errNotMine
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return errNotMine
	}
	for _, p := range []string{filepath.Dir(filepath.Dir(bin)), filepath.Dir(filepath.Dir(real)), "/usr/local"} {
		if p == "/usr" {
			continue
		}
		if _, err := os.Stat(filepath.Join(p, "etc", "gitconfig")); !errors.Is(err, fs.ErrNotExist) {
			return errNotMine
		}
	}
	if real == "/usr/bin/git" {
		return c.file("/etc/gitconfig", 0)
	}
	if _, err := os.Stat("/etc/gitconfig"); !errors.Is(err, fs.ErrNotExist) {
		return errNotMine
	}
	return nil
}

// parameters reads GIT_CONFIG_COUNT and GIT_CONFIG_KEY_n/VALUE_n.
func (c *identConfig) parameters() error {
	s, set := c.env("GIT_CONFIG_COUNT")
	if !set || s == "" {
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1000 || strings.TrimLeft(s, "0123456789") != "" {
		return errNotMine
	}
	for i := range n {
		k, ok1 := c.env("GIT_CONFIG_KEY_" + strconv.Itoa(i))
		v, ok2 := c.env("GIT_CONFIG_VALUE_" + strconv.Itoa(i))
		if !ok1 || !ok2 {
			return errNotMine
		}
		first, last := strings.Index(k, "."), strings.LastIndex(k, ".")
		if first <= 0 || last == len(k)-1 {
			return errNotMine
		}
		sec := strings.ToLower(k[:first])
		if sec == "include" || sec == "includeif" || !configName(k[:first]) || !configName(k[last+1:]) {
			return errNotMine
		}
		if first == last {
			if err := c.set(sec, strings.ToLower(k[last+1:]), v, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// file reads one configuration file; a missing one is no error, as in git.
func (c *identConfig) file(p string, depth int) error { return c.fileOf(p, depth, false) }

func (c *identConfig) fileOf(p string, depth int, repo bool) error {
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return errNotMine
	}
	err = gcfg.ReadWithCallback(bytes.NewReader(b), func(s, ss, k, v string, blank bool) error {
		if k == "" {
			return nil
		}
		s, k = strings.ToLower(s), strings.ToLower(k)
		if (identKeys[s+"."+k] || s == "include" || s == "includeif" || s == "extensions") && (hasControl(v) || hasControl(ss)) {
			// gcfg keeps a tab inside a value, where git writes a space,
			// and a backslash-newline as a newline, where git joins the
			// lines: a value with either is git's to read.
			return errNotMine
		}
		switch {
		case repo && depth == 0 && s == "extensions" && ss == "" && k == "worktreeconfig":
			on, ok := parseBool(v)
			if !ok && !blank {
				return errNotMine
			}
			c.worktreeConfig = on || blank
		case s == "include" && ss == "" && k == "path":
			if blank {
				return errNotMine
			}
			return c.include(p, v, depth)
		case s == "includeif" && ss != "" && k == "path":
			if blank {
				return errNotMine
			}
			match, err := c.condition(p, ss)
			if err != nil || !match {
				return err
			}
			return c.include(p, v, depth)
		case ss == "":
			return c.set(s, k, v, blank)
		}
		return nil
	})
	if err != nil {
		return errNotMine
	}
	return nil
}

// configName reports whether s is a section or key name git accepts
// (letters, digits and '-', a key starting with a letter; we ask the same
// of a section): git refuses a command-line key of other characters.
func configName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c != '-' && (c < '0' || c > '9')) {
			return false
		}
	}
	return s != ""
}

// hasControl reports whether s holds a control character (tab, newline).
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < ' ' })
}

func (c *identConfig) set(s, k, v string, blank bool) error {
	if !identKeys[s+"."+k] {
		return nil
	}
	if blank && k != "useconfigonly" {
		return errNotMine // git: "missing value"
	}
	c.vals[s+"."+k] = v
	return nil
}

// include reads the file an include.path of file from names, as git's
// handle_path_include finds it: "~/" is $HOME, a relative path is
// relative to the including file's folder.
func (c *identConfig) include(from, path string, depth int) error {
	if depth+1 > maxIncludeDepth {
		return errNotMine
	}
	p, err := c.expandHome(path, false)
	if err != nil || p == "" {
		return errNotMine
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(from), p)
	}
	return c.file(p, depth+1)
}

// expandHome expands "~/" as git's interpolate_path; real resolves
// symbolic links in the home folder (as includeIf does).
func (c *identConfig) expandHome(p string, real bool) (string, error) {
	if strings.HasPrefix(p, "%(") {
		return "", errNotMine
	}
	if !strings.HasPrefix(p, "~") {
		return p, nil
	}
	if !strings.HasPrefix(p, "~/") {
		return "", errNotMine // ~user/
	}
	home, _ := c.env("HOME")
	if home == "" {
		return "", errNotMine
	}
	if real {
		h, err := filepath.EvalSymlinks(home)
		if err != nil {
			return "", errNotMine
		}
		home = h
	}
	return home + p[1:], nil
}

// condition evaluates includeIf "<cond>" of file from: gitdir: and
// gitdir/i: are done as git's include_by_gitdir does them; every other
// condition is git's to evaluate.
func (c *identConfig) condition(from, cond string) (bool, error) {
	var pat string
	var icase bool
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		pat = cond[len("gitdir:"):]
	case strings.HasPrefix(cond, "gitdir/i:"):
		pat, icase = cond[len("gitdir/i:"):], true
	default:
		return false, errNotMine
	}
	pat, err := c.expandHome(pat, true)
	if err != nil {
		return false, err
	}
	switch {
	case strings.HasPrefix(pat, "./"):
		real, err := filepath.EvalSymlinks(from)
		if err != nil {
			return false, errNotMine
		}
		pat = filepath.Dir(real) + pat[1:]
	case !filepath.IsAbs(pat):
		pat = "**/" + pat
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	// git tries the real path of the git directory, then the absolute one
	// as it found it, which may not be the one we found: where only ours
	// matches, git is asked.
	real, err := filepath.EvalSymlinks(c.gitDir)
	if err != nil {
		return false, errNotMine
	}
	m, ok := gitdirMatch(pat, real, icase)
	if !ok {
		return false, errNotMine
	}
	if !m && real != c.gitDir {
		if m, _ := gitdirMatch(pat, c.gitDir, icase); m {
			return false, errNotMine
		}
	}
	return m, nil
}

// gitdirMatch is git's wildmatch(pattern, text, WM_PATHNAME) for the
// patterns includeIf "gitdir:" makes of a plain path: a literal, with
// "**/" before (any leading folders) and "/**" after (anything below).
// ok is false for any other wildcard, which is git's to match.
func gitdirMatch(pat, text string, icase bool) (match, ok bool) {
	if icase {
		pat, text = lowerASCII(pat), lowerASCII(text)
	}
	anyBefore := strings.HasPrefix(pat, "**/")
	if anyBefore {
		pat = pat[3:]
	}
	anyBelow := strings.HasSuffix(pat, "/**")
	if anyBelow {
		pat = pat[:len(pat)-3]
	}
	if strings.ContainsAny(pat, `*?[\`) {
		return false, false
	}
	switch {
	case anyBefore && anyBelow:
		return strings.HasPrefix(text, pat+"/") || strings.Contains(text, "/"+pat+"/"), true
	case anyBefore:
		return text == pat || strings.HasSuffix(text, "/"+pat), true
	case anyBelow:
		return strings.HasPrefix(text, pat+"/"), true
	}
	return text == pat, true
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// parseBool is git_parse_maybe_bool for the spellings git accepts.
func parseBool(v string) (on, ok bool) {
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0", "":
		return false, true
	}
	return false, false
}

// signature is git's fmt_ident for whose ("AUTHOR", "COMMITTER") in strict
// mode, where the name and email are given (the environment, then
// <which>.name/email, then user.*, then $EMAIL): the identity git guesses
// from the machine, and the errors, are git's to give.
func (c *identConfig) signature(whose, which string) (Signature, bool) {
	name, ok := c.pick("GIT_"+whose+"_NAME", which+".name", "user.name")
	if !ok {
		return Signature{}, false
	}
	email, ok := c.pick("GIT_"+whose+"_EMAIL", which+".email", "user.email")
	if !ok {
		// $EMAIL, unless user.useConfigOnly may forbid it.
		e, set := c.env("EMAIL")
		if _, uco := c.vals["user.useconfigonly"]; !set || e == "" || uco {
			return Signature{}, false
		}
		email = e // git trims it, and drops crud: clean leaves such a value to git
	}
	if !clean(name) || !clean(email) {
		return Signature{}, false
	}
	sig := Signature{Name: name, Email: email}
	if d, set := c.env("GIT_" + whose + "_DATE"); set {
		when, ok := parseGitDate(d)
		if !ok {
			return Signature{}, false
		}
		sig.When = when
		return sig, true
	}
	// "now": the caller stamps each commit; the zone is the local one,
	// which Go reads from $TZ as the C library does for a zone's name (a
	// POSIX rule such as "CET-1" Go does not read: git is asked).
	loc := time.Local
	if tz, set := c.env("TZ"); set {
		l, err := time.LoadLocation(strings.TrimPrefix(tz, ":"))
		if err != nil {
			return Signature{}, false
		}
		loc = l
	}
	_, off := time.Now().In(loc).Zone()
	sig.When = time.Time{}.In(time.FixedZone("", off))
	return sig, true
}

// pick is the first of the environment variable and the configuration
// keys that gives a value; git takes an empty one from the environment
// as given (and refuses it), and skips an empty configured one.
func (c *identConfig) pick(envVar string, keys ...string) (string, bool) {
	if v, set := c.env(envVar); set {
		return v, v != ""
	}
	for _, k := range keys {
		if v := c.vals[k]; v != "" {
			return v, true
		}
	}
	return "", false
}

// clean reports whether git would write s as it is: git drops "crud"
// (control characters, space and ,:;<>"\' ) from both ends and '<', '>'
// and newlines inside, and refuses an empty result; for such a value we
// let git say what it makes of it.
func clean(s string) bool {
	if s == "" || strings.ContainsAny(s, "<>") || hasControl(s) {
		return false
	}
	crud := func(c byte) bool { return c <= ' ' || strings.IndexByte(`,:;<>"\'.`, c) >= 0 }
	return !crud(s[0]) && !crud(s[len(s)-1])
}

// parseGitDate reads the date forms git reads exactly as they are: git's
// internal "<unix> <+hhmm>", with or without '@'. Any other form is git's.
func parseGitDate(d string) (time.Time, bool) {
	at := strings.HasPrefix(d, "@")
	sec, tz, ok := strings.Cut(strings.TrimPrefix(d, "@"), " ")
	if !ok || sec == "" || len(sec) > 10 || strings.TrimLeft(sec, "0123456789") != "" || len(tz) != 5 ||
		(tz[0] != '+' && tz[0] != '-') || strings.TrimLeft(tz[1:], "0123456789") != "" {
		return time.Time{}, false
	}
	n, _ := strconv.ParseInt(sec, 10, 64)
	// Without '@' git reads a number as seconds only from 100000000 on,
	// and through its calendar, which ends with 2099.
	if !at && (n < 100000000 || n >= 4102444800) {
		return time.Time{}, false
	}
	h, _ := strconv.Atoi(tz[1:3])
	m, _ := strconv.Atoi(tz[3:])
	if h >= 24 || m >= 60 {
		return time.Time{}, false
	}
	off := (h*60 + m) * 60
	if tz[0] == '-' {
		off = -off
	}
	return time.Unix(n, 0).In(time.FixedZone("", off)), true
}
