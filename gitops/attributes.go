package gitops

import (
	"bytes"
	"os"
	"os/user"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/autocoder/autocoder/step"
	"github.com/go-git/go-git/v5/plumbing/format/gitattributes"
)

// Attributes answers, per path, what git does to a file's bytes between the
// worktree and its blob: the line-ending conversion of core.autocrlf,
// core.eol and the text/eol/crlf attributes, and whether a filter or a
// working-tree-encoding (which we do not run) applies. It reads the
// .gitattributes files of the folders on a path's way only, once each, so
// its cost grows with the paths asked about, not with the repository.
//
// Sources, lowest priority first, as git reads them: core.attributesFile
// (default $XDG_CONFIG_HOME/git/attributes), the .gitattributes of the
// root and of each folder down to the path (from the worktree), then
// $GIT_DIR/info/attributes. The system file (/etc/gitattributes) is not
// read. Macros ([attr]name) are read from the root .gitattributes,
// info/attributes and the global file; "binary" is built in.
type Attributes struct {
	r    *Repo
	once sync.Once
	// from git's configuration, all of it (config.go): what Git for
	// Windows sets lives in its system file.
	autocrlf string // "true", "input" or "false"
	eolCRLF  bool   // text_eol_is_crlf(): what "text" alone means on checkout
	global   []gitattributes.MatchAttribute
	info     []gitattributes.MatchAttribute
	dirs     map[string][]gitattributes.MatchAttribute // folder ("" the root) -> its rules
	macros   map[string][]gitattributes.Attribute
}

// Attributes returns the repository's attribute reader. It caches what it
// read: call Forget after a .gitattributes file changed.
func (r *Repo) Attributes() *Attributes {
	r.attrsMu.Lock()
	defer r.attrsMu.Unlock()
	if r.attrs == nil {
		r.attrs = &Attributes{r: r}
	}
	return r.attrs
}

// ForgetAttributes drops the attribute rules the reader cached (a step
// wrote a .gitattributes file; a session's next call), so that they are
// read again, with git's configuration where it changed (Repo.config).
func (r *Repo) ForgetAttributes() {
	r.attrsMu.Lock()
	r.attrs = nil
	r.attrsMu.Unlock()
}

func (a *Attributes) load() {
	a.once.Do(func() {
		a.dirs = map[string][]gitattributes.MatchAttribute{}
		a.macros = map[string][]gitattributes.Attribute{
			// git's one built-in macro.
			"binary": parseAttrs("-diff -merge -text"),
		}
		cfg := a.r.config()
		get := func(k string) string { v, _, _ := cfg.value(a.r, k); return v }
		// git's core.autocrlf: "input", else a boolean (a key without
		// "=" is true); git refuses any other value.
		v, valueless, _ := cfg.value(a.r, "core.autocrlf")
		on, _ := parseBool(v, valueless)
		switch {
		case !valueless && strings.EqualFold(v, "input"):
			a.autocrlf = "input"
		case on:
			a.autocrlf = "true"
		default:
			a.autocrlf = "false"
		}
		eol := strings.ToLower(get("core.eol"))
		switch {
		case a.autocrlf == "true":
			a.eolCRLF = true
		case a.autocrlf == "input":
			a.eolCRLF = false
		case eol == "crlf":
			a.eolCRLF = true
		case eol == "lf":
			a.eolCRLF = false
		default:
			a.eolCRLF = runtime.GOOS == "windows" // "native"
		}
		if gf := a.r.userConfigFile(get("core.attributesfile"), "attributes"); gf != "" {
			a.global = a.readFile(gf, nil, true, false)
		}
		a.info = a.readFile(filepath.Join(a.r.CommonDir, "info", "attributes"), nil, true, false)
	})
}

// userConfigFile is a per-user file of git's as git finds it: the
// configured path (core.attributesFile, core.excludesFile; "~/" is the
// home folder, "~name/" the user name's, and a relative path is relative to the top of the work
// tree, where git runs: not to the folder autocoder was started in), else
// $XDG_CONFIG_HOME/git/<name>, else ~/.config/git/<name>; "" when there is
// no home folder.
func (r *Repo) userConfigFile(configured, name string) string {
	switch {
	case strings.HasPrefix(configured, "~"):
		// ~/x is the home folder's, ~name/x the home of the user name, as
		// git's expand_user_path reads them (the user database, not $HOME,
		// for a name).
		name, rest, _ := strings.Cut(configured[1:], "/")
		if name == "" {
			if h, err := os.UserHomeDir(); err == nil {
				return filepath.Join(h, rest)
			}
			return ""
		}
		if u, err := user.Lookup(name); err == nil && u.HomeDir != "" {
			return filepath.Join(u.HomeDir, rest)
		}
		return "" // git cannot expand it either, and reads no file
	case configured != "" && !filepath.IsAbs(configured):
		return filepath.Join(r.Root, configured)
	case configured != "":
		return configured
	case os.Getenv("XDG_CONFIG_HOME") != "":
		return filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git", name)
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".config", "git", name)
	}
	return ""
}

// maxAttrLine is git's ATTR_MAX_LINE_LENGTH: a line as long or longer is
// ignored.
const maxAttrLine = 2048

// readFile reads one attributes file; rules of folder dir (slash-separated
// components, nil for the root) match below it only. Lines git would warn
// about and ignore are ignored. What is not a regular file is not read: a
// .gitattributes of the work tree (tree) that is a symlink, as git does
// not read one (one to /dev/zero would be read without end), and a named
// pipe, which would be waited on forever.
func (a *Attributes) readFile(p string, domain []string, macros, tree bool) []gitattributes.MatchAttribute {
	stat := os.Stat
	if tree {
		stat = os.Lstat
	}
	if fi, err := stat(p); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var out []gitattributes.MatchAttribute
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if len(line) >= maxAttrLine {
			continue // git: "ignoring overly long attributes line"
		}
		m, err := gitattributes.ParseAttributesLine(line, domain, macros)
		if err != nil || m.Name == "" {
			continue
		}
		if m.Pattern == nil {
			a.macros[m.Name] = m.Attributes
			continue
		}
		out = append(out, m)
	}
	return out
}

func (a *Attributes) dir(d string) []gitattributes.MatchAttribute {
	if rules, ok := a.dirs[d]; ok {
		return rules
	}
	var domain []string
	if d != "" {
		domain = strings.Split(d, "/")
	}
	rules := a.readFile(filepath.Join(a.r.Root, filepath.FromSlash(d), ".gitattributes"), domain, d == "", true)
	a.dirs[d] = rules
	return rules
}

func parseAttrs(s string) []gitattributes.Attribute {
	m, _ := gitattributes.ParseAttributesLine("x "+s, nil, false)
	return m.Attributes
}

// lookup returns the state of each named attribute for rel (slash-separated):
// the highest-priority rule that says anything about it wins, and a set
// macro fills in its attributes where nothing higher said otherwise, as
// git's attr.c fills them.
func (a *Attributes) lookup(rel string, names ...string) map[string]gitattributes.Attribute {
	a.load()
	var stack [][]gitattributes.MatchAttribute // highest priority first
	stack = append(stack, a.info)
	dirs := []string{}
	for d := path.Dir(rel); ; d = path.Dir(d) {
		if d == "." {
			dirs = append(dirs, "")
			break
		}
		dirs = append(dirs, d)
	}
	for _, d := range dirs { // deepest first
		stack = append(stack, a.dir(d))
	}
	stack = append(stack, a.global)
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]gitattributes.Attribute{}
	var fill func(at gitattributes.Attribute, depth int)
	fill = func(at gitattributes.Attribute, depth int) {
		if _, done := out[at.Name()]; done {
			return
		}
		if want[at.Name()] {
			out[at.Name()] = at
		}
		if at.IsSet() && depth < 8 {
			if exp, ok := a.macros[at.Name()]; ok {
				for i := len(exp) - 1; i >= 0; i-- {
					fill(exp[i], depth+1)
				}
			}
		}
	}
	parts := strings.Split(rel, "/")
	for _, rules := range stack {
		for i := len(rules) - 1; i >= 0; i-- { // later lines win
			if !rules[i].Pattern.Match(parts) {
				continue
			}
			ats := rules[i].Attributes
			for j := len(ats) - 1; j >= 0; j-- {
				fill(ats[j], 0)
			}
		}
	}
	for n, at := range out {
		if at.IsUnspecified() {
			delete(out, n)
		}
	}
	return out
}

// crlfAction is convert.c's enum crlf_action, resolved: what git does to
// line endings on add (to git) and on checkout (to the worktree).
type crlfAction int

const (
	crlfBinary    crlfAction = iota // nothing, either way
	crlfTextInput                   // CRLF -> LF on add; nothing on checkout
	crlfTextCRLF                    // CRLF -> LF on add; LF -> CRLF on checkout
	crlfAutoInput                   // as TextInput, for text git detects only
	crlfAutoCRLF                    // as TextCRLF, for text git detects only
)

// Conversion is what git does to one path's content between the worktree
// and the blob. The zero value converts nothing.
type Conversion struct {
	Path     string
	action   crlfAction
	Filter   string // the filter attribute's driver (Git LFS: "lfs"), or ""
	Encoding string // working-tree-encoding, or ""
}

// Conversion returns what git does to rel's content (convert.c's
// convert_attrs).
func (a *Attributes) Conversion(rel string) Conversion {
	at := a.lookup(rel, "text", "crlf", "eol", "filter", "working-tree-encoding")
	c := Conversion{Path: rel}
	if f, ok := at["filter"]; ok && f.IsValueSet() {
		c.Filter = f.Value()
	}
	if w, ok := at["working-tree-encoding"]; ok && w.IsValueSet() {
		c.Encoding = w.Value()
	}
	const (
		undefined = iota
		binary
		text
		input
		auto
	)
	check := func(name string) int {
		x, ok := at[name]
		switch {
		case !ok:
			return undefined
		case x.IsSet():
			return text
		case x.IsUnset():
			return binary
		case x.Value() == "input":
			return input
		case x.Value() == "auto":
			return auto
		}
		return undefined
	}
	act := check("text")
	if act == undefined {
		act = check("crlf")
	}
	if act != binary {
		var eol string
		if e, ok := at["eol"]; ok && e.IsValueSet() {
			eol = e.Value()
		}
		switch {
		case act == auto && eol == "lf":
			c.action = crlfAutoInput
			return c
		case act == auto && eol == "crlf":
			c.action = crlfAutoCRLF
			return c
		case eol == "lf":
			c.action = crlfTextInput
			return c
		case eol == "crlf":
			c.action = crlfTextCRLF
			return c
		}
	}
	switch act {
	case binary:
		c.action = crlfBinary
	case input:
		c.action = crlfTextInput
	case text:
		c.action = crlfTextInput
		if a.eolCRLF {
			c.action = crlfTextCRLF
		}
	case auto:
		c.action = crlfAutoInput
		if a.eolCRLF {
			c.action = crlfAutoCRLF
		}
	default: // undefined: core.autocrlf decides
		switch a.autocrlf {
		case "true":
			c.action = crlfAutoCRLF
		case "input":
			c.action = crlfAutoInput
		default:
			c.action = crlfBinary
		}
	}
	return c
}

// Identity reports whether the conversion leaves every content as it is.
func (c Conversion) Identity() bool { return c.action == crlfBinary }

func (c Conversion) auto() bool { return c.action == crlfAutoInput || c.action == crlfAutoCRLF }

// Unsupported is the refusal for a path whose content git runs through a
// program we do not run (a filter such as Git LFS) or re-encodes
// (working-tree-encoding): its blob is not its bytes, so a step would
// commit the wrong content. nil when neither applies.
func (c Conversion) Unsupported() error {
	switch {
	case c.Filter != "":
		return &step.Error{C: step.ClassRefused,
			Msg: "refused " + c.Path + ": .gitattributes gives it the filter \"" + c.Filter + "\", which autocoder does not run (its blob is not the file's bytes)",
			Fix: "change this file by hand and commit it with git (git add runs the filter)"}
	case c.Encoding != "":
		return &step.Error{C: step.ClassRefused,
			Msg: "refused " + c.Path + ": .gitattributes gives it working-tree-encoding=" + c.Encoding + ", which autocoder does not convert",
			Fix: "change this file by hand and commit it with git"}
	}
	return nil
}

// ToGit is the blob git add makes of worktree content (convert.c's
// crlf_to_git). indexHasCR reports whether the blob the index holds for
// the path has a CR in it: for text git detects itself ("auto"), such a
// file is left as it is, so that a file committed with CRLF does not look
// changed forever; it is called only when that matters.
func (c Conversion) ToGit(data []byte, indexHasCR func() bool) []byte {
	if c.action == crlfBinary || len(data) == 0 {
		return data
	}
	st := gatherStats(data)
	if st.crlf == 0 {
		return data
	}
	if c.auto() {
		if st.binary() || (indexHasCR != nil && indexHasCR()) {
			return data
		}
	}
	out := make([]byte, 0, len(data)-st.crlf)
	for i := 0; i < len(data); i++ {
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			continue
		}
		out = append(out, data[i])
	}
	return out
}

// ToWorktree is the file git checkout writes for a blob (convert.c's
// crlf_to_worktree).
func (c Conversion) ToWorktree(blob []byte) []byte {
	if (c.action != crlfTextCRLF && c.action != crlfAutoCRLF) || len(blob) == 0 {
		return blob
	}
	st := gatherStats(blob)
	if st.lonelf == 0 {
		return blob
	}
	if c.auto() && (st.lonecr > 0 || st.crlf > 0 || st.binary()) {
		return blob
	}
	out := make([]byte, 0, len(blob)+st.lonelf)
	for i, b := range blob {
		if b == '\n' && (i == 0 || blob[i-1] != '\r') {
			out = append(out, '\r')
		}
		out = append(out, b)
	}
	return out
}

// HasCR reports whether b holds a carriage return (has_crlf_in_index's
// test on the index blob).
func HasCR(b []byte) bool { return bytes.IndexByte(b, '\r') >= 0 }

// textStats is convert.c's struct text_stat.
type textStats struct {
	nul, lonecr, lonelf, crlf int
	printable, nonprintable   int
}

func gatherStats(b []byte) textStats {
	var s textStats
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				s.crlf++
				i++
			} else {
				s.lonecr++
			}
		case c == '\n':
			s.lonelf++
		case c == 127:
			s.nonprintable++
		case c < 32:
			switch c {
			case '\b', '\t', '\033', '\014':
				s.printable++
			case 0:
				s.nul++
				s.nonprintable++
			default:
				s.nonprintable++
			}
		default:
			s.printable++
		}
	}
	// A DOS end-of-file mark at the very end is not held against the file.
	if len(b) > 0 && b[len(b)-1] == '\032' {
		s.nonprintable--
	}
	return s
}

// binary is convert.c's convert_is_binary.
func (s textStats) binary() bool {
	return s.lonecr > 0 || s.nul > 0 || (s.printable>>7) < s.nonprintable
}
