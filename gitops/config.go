package gitops

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/autocoder/autocoder/gitops/index"
	"github.com/go-git/gcfg"
)

// git's configuration without `git config`: git's own resolution
// (config.c) of the files users write, read in-process, because a git
// process costs a few milliseconds of every command. Whatever this does
// not reproduce exactly (an includeIf condition other than gitdir, a
// system file at a place we cannot be sure of, variables that move the
// repository, a value the parser we use reads otherwise than git) makes
// the read "not mine", as a whole or for one key, and the answer is asked
// of `git config --list`: git's either way.
//
// This is the one reader of git's configuration (the identity, the
// attribute and ignore settings, the index's, where a work branch
// started). The repository format (repo.go's checkFormat) is the one
// thing read from the repository's file alone, as git reads it.

// maxIncludeDepth is git's MAX_INCLUDE_DEPTH: deeper, git stops with an error.
const maxIncludeDepth = 10

// errNotMine says the configuration uses what configReader does not
// implement: the caller asks git.
var errNotMine = errors.New("not resolved in-process")

// configValues are the keys of git's configuration as one read found them,
// each as configKey spells it.
type configValues struct {
	vals map[string]string // the last value of each key ("" for one without "=")
	// valueless are keys whose last assignment has no "=" ("[core]
	// autocrlf"): git's NULL value, which a boolean reads as true, where
	// "autocrlf =" is an empty value, false (parseBool).
	valueless map[string]bool
	// unsure are keys whose last value the parser may read otherwise than
	// git (see fileOf): git is asked for them.
	unsure map[string]bool
	// noValue are keys given without "=" anywhere (git refuses it for a
	// string, such as user.name, wherever it is).
	noValue map[string]bool
}

func newConfigValues() *configValues {
	return &configValues{vals: map[string]string{}, valueless: map[string]bool{},
		unsure: map[string]bool{}, noValue: map[string]bool{}}
}

// configKey is key as git compares keys: the section and the name in lower
// case, a subsection ("branch.<name>.x") as it is.
func configKey(key string) string {
	first, last := strings.Index(key, "."), strings.LastIndex(key, ".")
	if first < 0 {
		return strings.ToLower(key)
	}
	return strings.ToLower(key[:first]) + key[first:last] + strings.ToLower(key[last:])
}

// configState is one read of git's configuration and what it depends on:
// the files it read or looked for and the variables it looked at. It
// holds while they are as they were (current).
type configState struct {
	in    *configValues // nil: the read was not ours to make
	files map[string]os.FileInfo
	vars  map[string]envValue
	// racy is set when a file was written so shortly before the read
	// that a second write might leave the same stat (see racyWindow).
	racy bool
	// git is `git config --list`'s answer, asked once, where in cannot
	// answer.
	gitOnce sync.Once
	git     *configValues
	gitErr  error // git config failed: git has nothing set
}

type envValue struct {
	v   string
	set bool
}

// current reports whether nothing the read depends on changed: a file
// written (git config replaces the file: another inode), appearing or
// going, or a variable changed.
func (s *configState) current(env func(string) (string, bool)) bool {
	if s.racy {
		return false
	}
	for k, was := range s.vars {
		if v, set := env(k); v != was.v || set != was.set {
			return false
		}
	}
	for p, was := range s.files {
		if !sameStat(was, p) {
			return false
		}
	}
	return true
}

// config is git's configuration for r as git reads it now, in this
// process's environment. A read is kept while current: a command asks
// for it many times, and a session between its calls, when the user or
// autocoder itself (SetBranchStart) may have changed a file. After a
// Refresh, whether it is current is looked at once, at the first question;
// autocoder's own writes (configSet) drop it at once. A read git answered
// (in is nil) stopped where the in-process read could not go on (an
// includeIf onbranch:, a system file of another git): the files git reads
// after that point (a later include, the global file) are not among those
// current looks at, so a session asks git again at each use.
func (r *Repo) config() *configState {
	r.cfgMu.Lock()
	defer r.cfgMu.Unlock()
	if r.cfg == nil || !r.cfgChecked && r.cfgStale() {
		r.cfg = r.readConfig(os.LookupEnv)
	}
	r.cfgChecked = r.cfgPerUse
	return r.cfg
}

// cfgStale reports whether the read kept in r.cfg must be done again:
// a file or variable it depends on changed, or, in a session, git
// answered it (see config).
func (r *Repo) cfgStale() bool {
	return !r.cfg.current(os.LookupEnv) || r.cfgPerUse && r.cfg.in == nil
}

// forgetConfig drops the read of the configuration, after autocoder wrote
// it (configSet): the next question reads it again.
func (r *Repo) forgetConfig() {
	r.cfgMu.Lock()
	r.cfg = nil
	r.cfgMu.Unlock()
}

// configValue is key's value ("core.autoCRLF", "branch.<name>.x") as
// `git config --get key` gives it: the last one, "" when it is unset or
// has no value.
func (r *Repo) configValue(key string) string {
	v, _, _ := r.config().value(r, configKey(key))
	return v
}

// value is key's value (configKey's spelling), whether its last
// assignment has no "=" (configValues.valueless), and whether it is set.
func (s *configState) value(r *Repo, key string) (v string, valueless, set bool) {
	vals := s.in
	if vals == nil || vals.unsure[key] {
		s.gitOnce.Do(func() { s.git, s.gitErr = r.gitConfigList() })
		vals = s.git
	}
	v, set = vals.vals[key]
	return v, vals.valueless[key], set
}

// boolean is key (configKey's spelling) read as git reads a boolean
// (parseBool); ok is false where it is unset or git refuses its value as
// a boolean.
func (s *configState) boolean(r *Repo, key string) (on, ok bool) {
	v, valueless, set := s.value(r, key)
	if !set {
		return false, false
	}
	return parseBool(v, valueless)
}

// hasKeyUnder reports whether a key starts with prefix (configKey's
// spelling, "branch.<name>."); known is false where git could not say.
func (s *configState) hasKeyUnder(r *Repo, prefix string) (some, known bool) {
	vals := s.in
	if vals == nil {
		s.gitOnce.Do(func() { s.git, s.gitErr = r.gitConfigList() })
		if s.gitErr != nil {
			return false, false
		}
		vals = s.git
	}
	for k := range vals.vals {
		if strings.HasPrefix(k, prefix) {
			return true, true
		}
	}
	return false, true
}

// gitConfigList is every key as `git config --list` gives it. Where git
// fails (a file it cannot parse), nothing is set: git refuses to work in
// such a repository, and says why, at the first git command.
func (r *Repo) gitConfigList() (*configValues, error) {
	out := newConfigValues()
	b, err := Git(context.Background(), r.Root, "config", "-z", "--list")
	if err != nil {
		return out, err
	}
	for _, rec := range bytes.Split(b, []byte{0}) {
		k, v, hasValue := strings.Cut(string(rec), "\n")
		if k == "" {
			continue
		}
		out.vals[k] = v // the last one wins, as in git
		out.valueless[k] = !hasValue
		if !hasValue {
			out.noValue[k] = true
		}
	}
	return out, nil
}

// configReader reads git's configuration files, in git's order, following
// include.path and includeIf "gitdir:".
type configReader struct {
	env    func(string) (string, bool)
	gitDir string // the repository's (the worktree's) git directory
	out    *configValues
	// worktreeConfig is extensions.worktreeConfig of the common config.
	worktreeConfig bool
	files          map[string]os.FileInfo
	vars           map[string]envValue
	racy           bool
}

// readConfig reads r's configuration in-process in the environment env
// (os.LookupEnv for the process's own).
func (r *Repo) readConfig(env func(string) (string, bool)) *configState {
	c := &configReader{gitDir: r.GitDir, out: newConfigValues(),
		files: map[string]os.FileInfo{}, vars: map[string]envValue{}}
	c.env = func(k string) (string, bool) {
		v, set := env(k)
		c.vars[k] = envValue{v, set}
		return v, set
	}
	s := &configState{files: c.files, vars: c.vars}
	// The repository's own file, which autocoder writes (git config),
	// counts whatever the read makes of it: the answer of git too is
	// read again after a change.
	c.stat(filepath.Join(r.CommonDir, "config"))
	if c.read(r) == nil {
		s.in = c.out
	}
	s.racy = c.racy
	return s
}

// racyWindow is how long after a file was written its stat does not
// tell a second write apart: a file system stamps times at the clock's
// tick (a few milliseconds; a second or two on some), and a write in
// place may keep the size. A configuration read this soon after a
// write is read again at the next question (git's "racy" files, the
// same way). A stamp finer than a millisecond is the kernel's clock tick
// (ext4, xfs, btrfs, APFS, NTFS; 1-10 ms): fineRacyWindow is then enough.
// Only a session's calls gain by it: those of its first three seconds,
// after it recorded its work branch in .git/config, each read the
// configuration again.
const (
	racyWindow     = 3 * time.Second
	fineRacyWindow = 50 * time.Millisecond
)

// racy reports whether a file last written at mtime was written too
// recently for its stat to tell a second write apart (see racyWindow).
func racy(mtime time.Time) bool {
	window := racyWindow
	if mtime.Nanosecond()%int(time.Millisecond) != 0 {
		window = fineRacyWindow
	}
	return time.Since(mtime) < window
}

// stat states p, once, for current: nil when it is absent.
func (c *configReader) stat(p string) (os.FileInfo, error) {
	fi, err := os.Stat(p)
	if _, seen := c.files[p]; !seen {
		c.files[p] = fi
		if fi != nil && racy(fi.ModTime()) {
			c.racy = true
		}
	}
	return fi, err
}

// read reads every configuration file git reads, in git's order.
func (c *configReader) read(r *Repo) error {
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
func (c *configReader) system() error {
	if v, _ := c.env("GIT_CONFIG_NOSYSTEM"); v != "" {
		on, ok := parseBool(v, false)
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
	c.env("PATH") // where LookPath finds git
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
		if _, err := c.stat(filepath.Join(p, "etc", "gitconfig")); !errors.Is(err, fs.ErrNotExist) {
			return errNotMine
		}
	}
	if real == "/usr/bin/git" {
		return c.file("/etc/gitconfig", 0)
	}
	if _, err := c.stat("/etc/gitconfig"); !errors.Is(err, fs.ErrNotExist) {
		return errNotMine
	}
	return nil
}

// parameters reads GIT_CONFIG_COUNT and GIT_CONFIG_KEY_n/VALUE_n.
func (c *configReader) parameters() error {
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
		if sec == "include" || sec == "includeif" || !configName(k[:first]) || !configName(k[last+1:]) || hasControl(k) {
			return errNotMine
		}
		// The value is taken as it is: no parser between.
		c.set(configKey(k), v, false, false)
	}
	return nil
}

// file reads one configuration file; a missing one is no error, as in git.
func (c *configReader) file(p string, depth int) error { return c.fileOf(p, depth, false) }

func (c *configReader) fileOf(p string, depth int, repo bool) error {
	// Stated before it is read: a change after is seen by current.
	if _, err := c.stat(p); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
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
		// gcfg keeps a tab inside a value, where git writes a space, and
		// a backslash-newline as a newline, where git joins the lines: a
		// value with either is git's to read.
		odd := hasControl(v) || hasControl(ss)
		if odd && (s == "include" || s == "includeif" || s == "extensions") {
			return errNotMine
		}
		switch {
		case repo && depth == 0 && s == "extensions" && ss == "" && k == "worktreeconfig":
			on, ok := parseBool(v, blank)
			if !ok {
				return errNotMine
			}
			c.worktreeConfig = on
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
		}
		key := s + "." + k
		if ss != "" {
			key = s + "." + ss + "." + k
		}
		c.set(key, v, blank, odd)
		return nil
	})
	if err != nil {
		return errNotMine
	}
	return nil
}

// set records one assignment: the last one wins, as in git.
func (c *configReader) set(key, v string, blank, unsure bool) {
	c.out.vals[key] = v
	c.out.valueless[key] = blank
	c.out.unsure[key] = unsure
	if blank {
		c.out.noValue[key] = true
	}
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

// include reads the file an include.path of file from names, as git's
// handle_path_include finds it: "~/" is $HOME, a relative path is
// relative to the including file's folder.
func (c *configReader) include(from, path string, depth int) error {
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
func (c *configReader) expandHome(p string, real bool) (string, error) {
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
func (c *configReader) condition(from, cond string) (bool, error) {
	var pat string
	var icase bool
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		pat = cond[len("gitdir:"):]
	case strings.HasPrefix(cond, "gitdir/i:"):
		pat, icase = cond[len("gitdir/i:"):], true
	default:
		if strings.HasPrefix(cond, "onbranch:") {
			// git matches the branch HEAD names: a switch (a new HEAD
			// file) changes what it includes, so the read depends on it.
			c.stat(filepath.Join(c.gitDir, "HEAD"))
		}
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

// parseBool is git's git_parse_maybe_bool, the one reading of a boolean
// in git's configuration and variables: a key without "=" (valueless) is
// true, an empty value false, true/yes/on and false/no/off in any case,
// and an integer as git reads one (parseInt) by its being nonzero. ok is
// false for any other value, which git refuses as a boolean.
func parseBool(v string, valueless bool) (on, ok bool) {
	if valueless {
		return true, true
	}
	switch strings.ToLower(v) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off", "":
		return false, true
	}
	n, ok := parseInt(v)
	return n != 0, ok
}

// parseInt is git's git_parse_int: C's strtoimax in base 0 (leading
// white space, a sign, 0x for hex, 0 for octal) followed by nothing or
// one of git's units k, m, g (1024, 1024², 1024³), within C's int.
func parseInt(v string) (int64, bool) {
	s := strings.TrimLeft(v, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	base := int64(10)
	switch {
	case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && digitOf(s[2]) < 16:
		base, s = 16, s[2:]
	case s != "" && s[0] == '0':
		base = 8
	}
	const maxInt = 1<<31 - 1
	var n int64
	i := 0
	for ; i < len(s) && digitOf(s[i]) < base; i++ {
		if n = n*base + digitOf(s[i]); n > maxInt {
			return 0, false // past C's int, whatever the unit
		}
	}
	if i == 0 {
		return 0, false
	}
	var unit int64
	switch strings.ToLower(s[i:]) {
	case "":
		unit = 1
	case "k":
		unit = 1 << 10
	case "m":
		unit = 1 << 20
	case "g":
		unit = 1 << 30
	default:
		return 0, false
	}
	if n > maxInt/unit {
		return 0, false
	}
	if neg {
		return -n * unit, true
	}
	return n * unit, true
}

// digitOf is the value of c as a digit of base 16 or less (16: none).
func digitOf(c byte) int64 {
	switch {
	case '0' <= c && c <= '9':
		return int64(c - '0')
	case 'a' <= c && c <= 'f':
		return int64(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int64(c-'A') + 10
	}
	return 16
}
